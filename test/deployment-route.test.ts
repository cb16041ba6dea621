import { describe, expect, it as plain, layer } from "@effect/vitest"
import { Address, rpc, StrKey, xdr } from "@stellar/stellar-sdk"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { readDeployment } from "../client/src/confidential/chain/ReadDeployment.ts"
import { decodeTokenInstance, TokenDeploymentInvalid } from "../src/Domain/TokenInstance.ts"
import { call } from "./support/Client.ts"
import { unitVariant } from "./support/LoopbackInstance.ts"
import { LoopbackRpc } from "./support/LoopbackRpc.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

// GET /confidential/deployment: CONFIDENTIAL_TOKEN_CONTRACT alone, the token's registries and underlying asset read
// from its instance storage (OpenZeppelin's 8af46e2c, storage.rs `ConfidentialTokenStorageKey`) through the loopback's
// getLedgerEntries, which serves the instance as stellar-rpc does.

const contractId = () => StrKey.encodeContract(randomBytes(32))

layer(TestAppLive({}, { ledgerIntervalMs: 50 }), { timeout: 120_000 })("GET /confidential/deployment (the token alone)", (it) => {
  it.effect("Stellar RPC unreachable at the first read: 502 after a few tries, nothing kept; once it answers, the chain's deployment", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      app.rpc.setFault({ kind: "http500" }, { methods: ["getLedgerEntries"] })
      const down = yield* call(app, "GET", "/confidential/deployment")
      expect(down.status).toBe(502)
      expect(down.body).toMatchObject({ _tag: "UpstreamUnavailable", error: expect.stringContaining("Stellar RPC") })
      expect(app.rpc.calls.filter((c) => c.method === "getLedgerEntries").length).toBeGreaterThan(1) // tried again
      app.rpc.setFault(null)

      const token = app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN)
      const up = yield* call(app, "GET", "/confidential/deployment")
      expect(up.status).toBe(200)
      expect(up.body).toEqual({
        contract: CONFIDENTIAL_TOKEN,
        auditorRegistry: token.auditorRegistry,
        verifierRegistry: token.verifierRegistry,
        underlyingAsset: token.underlyingAsset,
        auditorId: 0,
        networkPassphrase: app.rpc.networkPassphrase
      })
      // kept once read: no more reads of the chain
      app.rpc.resetCalls()
      expect((yield* call(app, "GET", "/confidential/deployment")).body).toEqual(up.body)
      expect(app.rpc.calls.filter((c) => c.method === "getLedgerEntries")).toEqual([])
    }))
})

layer(TestAppLive({ CONFIDENTIAL_VERIFIER_CONTRACT: contractId(), CONFIDENTIAL_AUDITOR_ID: "1" }), { timeout: 120_000 })(
  "GET /confidential/deployment (CONFIDENTIAL_VERIFIER_CONTRACT set to another contract than the token names)",
  (it) => {
    it.effect("501 naming the variable, the token's registry and what to do; asked again, the same", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const token = app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN)
        for (const _ of [1, 2]) {
          const refused = yield* call(app, "GET", "/confidential/deployment")
          expect(refused.status).toBe(501)
          expect(refused.body._tag).toBe("NotImplemented")
          expect(refused.body.error).toContain("CONFIDENTIAL_VERIFIER_CONTRACT is C")
          expect(refused.body.error).toContain(`names ${token.verifierRegistry} as its verifier registry`)
          expect(refused.body.error).toContain("unset CONFIDENTIAL_VERIFIER_CONTRACT")
        }
      }))
  }
)

layer(TestAppLive({ CONFIDENTIAL_TOKEN_CONTRACT: StrKey.encodeContract(Buffer.alloc(32, 0x33)) }), { timeout: 120_000 })(
  "GET /confidential/deployment (CONFIDENTIAL_TOKEN_CONTRACT names no confidential token)",
  (it) => {
    it.effect("nothing deployed there, then a contract that is no confidential token: 501 naming CONFIDENTIAL_TOKEN_CONTRACT", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const nothing = yield* call(app, "GET", "/confidential/deployment")
        expect(nothing.status).toBe(501)
        expect(nothing.body.error).toMatch(/^CONFIDENTIAL_TOKEN_CONTRACT: no contract is deployed at C[A-Z2-7]{55} on the network/)
        app.rpc.setContractFunction(StrKey.encodeContract(Buffer.alloc(32, 0x33)), "hello", () => xdr.ScVal.scvVoid())
        const other = yield* call(app, "GET", "/confidential/deployment")
        expect(other.status).toBe(501)
        expect(other.body.error).toContain("is not OpenZeppelin's confidential token")
      }))
  }
)

const ADDRESS = Address.fromString(StrKey.encodeContract(Buffer.alloc(32, 1))).toScVal()

describe("readDeployment and the rule it decodes with (src/Domain/TokenInstance.ts)", () => {
  plain.live("readDeployment on the loopback: the token's instance read; a token missing a key, another contract, no contract: TokenDeploymentInvalid", () =>
    Effect.acquireUseRelease(
      Effect.promise(() => LoopbackRpc.start({ ledgerIntervalMs: 0 })),
      (loopback) =>
        Effect.promise(async () => {
          const server = new rpc.Server(loopback.url, { allowHttp: true })
          const id = contractId()
          const token = loopback.deployConfidentialToken(id)
          expect(await readDeployment(server, id, loopback.networkPassphrase)).toEqual({
            contract: id,
            underlyingAsset: token.underlyingAsset,
            verifierRegistry: token.verifierRegistry,
            auditorRegistry: token.auditorRegistry,
            networkPassphrase: loopback.networkPassphrase
          })
          const refusal = (contract: string) =>
            readDeployment(server, contract, loopback.networkPassphrase).then(() => expect.fail("read"), (e: unknown) => e as TokenDeploymentInvalid)
          token.dropInstanceKey("Verifier")
          expect(await refusal(id)).toMatchObject({ _tag: "TokenDeploymentInvalid", reason: "KeyMissing", message: expect.stringContaining("keeps no Verifier") })
          const plainContract = contractId()
          loopback.setContractFunction(plainContract, "hello", () => xdr.ScVal.scvVoid())
          expect((await refusal(plainContract)).reason).toBe("NotConfidentialToken")
          expect((await refusal(contractId())).reason).toBe("NoInstance")
          loopback.setFault({ kind: "drop" }, { methods: ["getLedgerEntries"], times: 1 })
          const down = await readDeployment(server, id, loopback.networkPassphrase).catch((e: unknown) => e)
          expect(down).toMatchObject({ _tag: "ChainUnavailable" })
        }),
      (loopback) => Effect.promise(() => loopback.close())
    ), 30_000)

  plain("decodeTokenInstance (fast-check): any instance storage decodes to the three addresses or one TokenDeploymentInvalid, never throws", () => {
    const names = ["UnderlyingAsset", "Verifier", "Auditor", "AddressAsField", "Account", "Other"]
    const value = fc.constantFrom(ADDRESS, xdr.ScVal.scvU32(7), xdr.ScVal.scvBytes(Buffer.alloc(32)), xdr.ScVal.scvVoid())
    const key = fc.oneof(
      fc.constantFrom(...names).map(unitVariant),
      fc.constantFrom(...names).map((n) => xdr.ScVal.scvSymbol(n)),
      fc.constantFrom(...names).map((n) => xdr.ScVal.scvVec([xdr.ScVal.scvSymbol(n), ADDRESS]))
    )
    fc.assert(fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), fc.boolean(), (entries, asset) => {
      const instance = new xdr.ScContractInstance({
        executable: asset ? xdr.ContractExecutable.contractExecutableStellarAsset() : xdr.ContractExecutable.contractExecutableWasm(Buffer.alloc(32)),
        storage: entries.map(([k, v]) => new xdr.ScMapEntry({ key: k, val: v }))
      })
      const entry = xdr.LedgerEntryData.contractData(new xdr.ContractDataEntry({
        ext: xdr.ExtensionPoint.v0(),
        contract: Address.fromString(CONFIDENTIAL_TOKEN).toScAddress(),
        key: xdr.ScVal.scvLedgerKeyContractInstance(),
        durability: xdr.ContractDataDurability.persistent,
        val: xdr.ScVal.scvContractInstance(instance)
      }))
      const decoded = decodeTokenInstance(CONFIDENTIAL_TOKEN, "Test", entry, (a) => Address.fromScAddress(a).toString())
      const stored = (name: string) => entries.findLast(([k]) => k.type === "scvVec" && k.vec?.length === 1 && k.vec[0]?.type === "scvSymbol" && k.vec[0].sym.toString() === name)?.[1]
      const all = ["UnderlyingAsset", "Verifier", "Auditor"].every((n) => stored(n)?.type === "scvAddress")
      if (Either.isRight(decoded)) {
        expect(asset).toBe(false)
        expect(all).toBe(true)
        expect(decoded.right.auditorRegistry).toBe(Address.fromScVal(ADDRESS).toString())
      } else {
        expect(decoded.left).toBeInstanceOf(TokenDeploymentInvalid)
        expect(asset || !all).toBe(true)
        expect(decoded.left.message).not.toContain("\n")
      }
    }), { numRuns: 300 })
    expect(Either.getLeft(decodeTokenInstance(CONFIDENTIAL_TOKEN, "Test", undefined, () => ""))).toMatchObject({ _tag: "Some", value: { reason: "NoInstance" } })
  })
})
