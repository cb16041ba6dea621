import { expect, layer } from "@effect/vitest"
import { Keypair, Networks, TransactionBuilder, scValToNative, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { call, signIn } from "./support/Client.ts"
import { transferData } from "./support/ConfidentialData.ts"
import { contractError } from "./support/LoopbackXdr.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { DEFAULT_TOKEN_VERSION, TestAppWithToken, TOKEN_VERSIONS, tokenOf, type TokenVersion } from "./support/VersionedToken.ts"

// Issue 16 §2: POST /transfers/prepare builds, simulates and hands back the inner confidential_transfer; a stock
// @stellar/stellar-sdk signs it (TransactionBuilder.fromXDR, Transaction.sign) and POST /transfer lands it. Issue 23:
// whichever version of the confidential token is on the ledger, its refusals are named from its sources.

/** A real-size `TransferData` of `version`, base64. */
const data = (version: TokenVersion = DEFAULT_TOKEN_VERSION) => Buffer.from(transferData({ version })).toString("base64")

/** A recipient registered with the emulated token, and the employer's wallet registered too. */
const registered = (app: TestAppShape, ...addresses: ReadonlyArray<string>) => {
  for (const address of addresses) {
    if (app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, address) === undefined) app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address)
  }
}

const prepare = (app: TestAppShape, token: string, json: unknown) => call(app, "POST", "/transfers/prepare", { token, json })

/** What a wallet does with the answer: stock stellar-sdk, nothing of ours. */
const sign = (prepared: { xdr: string; networkPassphrase: string }, wallet: Keypair) => {
  const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
  tx.sign(wallet)
  return tx.toXDR()
}

for (const version of TOKEN_VERSIONS) {
  layer(TestAppWithToken(version, privyConfig, { ledgerIntervalMs: 50 }), { excludeTestServices: true })(
    `POST /transfers/prepare (token ${version})`,
    (it) => {
      it.effect("answers the unsigned transfer: next sequence, simulated footprint and auth, sponsor's bounds; signed by stock stellar-sdk it lands", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          registered(app, wallet.publicKey(), to)
          const before = Math.floor(Date.now() / 1000)
          const sequence = app.rpc.account(wallet.publicKey())!.sequence
          const res = yield* prepare(app, token, { to, data: data(version), validFor: 120 })
          expect(res.status).toBe(200)
          const prepared = res.body
          expect(prepared).toMatchObject({ networkPassphrase: Networks.TESTNET, source: wallet.publicKey(), sequence: String(sequence + 1n) })

          const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
          if (!("sequence" in tx)) throw new Error("a fee-bump came back")
          expect(tx.signatures).toHaveLength(0)
          expect(Buffer.from(tx.hash()).toString("hex")).toBe(prepared.hash)
          expect(tx.fee).toBe(prepared.fee)
          expect(Number(tx.timeBounds?.maxTime)).toBeGreaterThanOrEqual(before + 120)
          expect(Number(tx.timeBounds?.maxTime)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 120)
          expect(new Date(prepared.validUntil).getTime()).toBe(Number(tx.timeBounds?.maxTime) * 1000)
          const op = tx.operations[0]
          if (op?.type !== "invokeHostFunction") throw new Error("not a contract call")
          if (op.func.type !== "hostFunctionTypeInvokeContract") throw new Error("not invokeContract")
          expect(op.func.invokeContract.functionName.toString()).toBe("confidential_transfer")
          // The simulation's recorded authorization: the source's own, of this very call.
          expect(op.auth?.map((entry) => entry.credentials.type)).toEqual(["sorobanCredentialsSourceAccount"])
          const envelope = xdr.TransactionEnvelope.fromXDR(prepared.xdr, "base64")
          if (envelope.type !== "envelopeTypeTx") throw new Error("not a v1 envelope")
          expect(envelope.value.tx.ext.type).toBe("sorobanData") // footprint and resource fee

          const sent = yield* call(app, "POST", "/transfer", { token, json: { signedXDR: sign(prepared, wallet) } })
          expect(sent.status).toBe(200)
          expect(sent.body.status).toBe("SUCCESS")
          const landed = app.rpc.transactions.find((t) => t.innerHash === prepared.hash)
          expect(landed?.status).toBe("SUCCESS")
          expect(app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, to)).toBeDefined()
          expect(landed?.events.map((e) => scValToNative(e.topics[0]!))).toEqual(["transfer"])
          // The next one follows the sequence the ledger now holds.
          const next = yield* prepare(app, token, { to, data: data(version) })
          expect(next.body.sequence).toBe(String(sequence + 2n))
        }))

      it.effect("the host's refusal is 422 SimulationRefused with its contract error: an unregistered recipient (3501), data of another shape or version (3507), bytes that are no ScVal", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          registered(app, wallet.publicKey())
          const stranger = Keypair.random().publicKey()
          const unregistered = yield* prepare(app, token, { to: stranger, data: data(version) })
          expect(unregistered.status).toBe(422)
          expect(unregistered.body).toMatchObject({ _tag: "SimulationRefused", contractError: 3501, contractErrorName: "AccountNotRegistered" })
          expect(unregistered.body.hostError).toContain("#3501")
          expect(unregistered.body.error).toContain("the confidential token refused it (AccountNotRegistered, #3501)")
          const payee = Keypair.random().publicKey()
          registered(app, payee)
          for (const other of [xdr.ScVal.scvU32(7).toXDR("base64"), data(TOKEN_VERSIONS.find((v) => v !== version))]) {
            const shape = yield* prepare(app, token, { to: payee, data: other })
            expect(shape.status).toBe(422)
            expect(shape.body).toMatchObject({ _tag: "SimulationRefused", contractError: 3507, contractErrorName: "InvalidData" })
          }
          // Not XDR at all: the host traps before the contract can name an error.
          const garbage = yield* prepare(app, token, { to: payee, data: Buffer.from("not a TransferData").toString("base64") })
          expect(garbage.status).toBe(422)
          expect(garbage.body._tag).toBe("SimulationRefused")
          expect(garbage.body.contractError).toBeUndefined()
          expect(garbage.body.contractErrorName).toBeUndefined()
        }))

      it.effect("a frozen sender or recipient (the compliance extension) is 3601 AccountFrozen; unfrozen, the transfer is prepared", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          registered(app, wallet.publicKey(), to)
          const controls = tokenOf(app)
          if (controls.complianceConfig() === undefined) controls.setComplianceConfig()
          for (const frozen of [to, wallet.publicKey()]) {
            controls.freeze(frozen)
            const refused = yield* prepare(app, token, { to, data: data(version) })
            controls.unfreeze(frozen)
            expect(refused.status).toBe(422)
            expect(refused.body).toMatchObject({ _tag: "SimulationRefused", contractError: 3601, contractErrorName: "AccountFrozen" })
            expect(refused.body.error).toContain("compliance controls refused it (AccountFrozen, #3601)")
          }
          expect((yield* prepare(app, token, { to, data: data(version) })).status).toBe(200)
        }))

      it.effect("an auditor the registry holds no key for is the registry's 3301 AuditorNotRegistered, passed up through the token", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          registered(app, wallet.publicKey())
          const to = Keypair.random().publicKey()
          app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, to, { auditorId: 7 })
          tokenOf(app).removeAuditorKey(7)
          const refused = yield* prepare(app, token, { to, data: data(version) }).pipe(
            Effect.ensuring(Effect.sync(() => tokenOf(app).restoreAuditorKey(7)))
          )
          expect(refused.status).toBe(422)
          expect(refused.body).toMatchObject({ _tag: "SimulationRefused", contractError: 3301, contractErrorName: "AuditorNotRegistered" })
          expect(refused.body.hostError).toContain(`"contract call failed", get_key, [7]`)
          expect(refused.body.error).toContain("auditor registry refused it (AuditorNotRegistered, #3301)")
          expect((yield* prepare(app, token, { to, data: data(version) })).status).toBe(200)
        }))

      it.effect("a code outside the token's ranges keeps its number and gets no name", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          registered(app, wallet.publicKey(), to)
          const emulation = tokenOf(app).functions().get("confidential_transfer")!
          for (const code of [3304, 3404, 3515, 3607, 4242]) {
            app.rpc.setContractFunction(CONFIDENTIAL_TOKEN, "confidential_transfer", () => {
              throw contractError(CONFIDENTIAL_TOKEN, code)
            })
            const refused = yield* prepare(app, token, { to, data: data(version) }).pipe(
              Effect.ensuring(Effect.sync(() => app.rpc.setContractFunction(CONFIDENTIAL_TOKEN, "confidential_transfer", emulation)))
            )
            expect(refused.status).toBe(422)
            expect(refused.body).toMatchObject({ _tag: "SimulationRefused", contractError: code })
            expect(refused.body.contractErrorName).toBeUndefined()
            expect(refused.body.error).toContain(`a contract refused it with error #${code}`)
          }
        }))

      // What follows does not depend on the token's version: once is enough.
      if (version !== DEFAULT_TOKEN_VERSION) return

      it.effect("who may prepare: wallet employers and keys with transfers:submit; email sessions 501, no organization 403, other scopes 403", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          registered(app, wallet.publicKey(), to)
          const body = { to, data: data() }
          const key = async (scopes: ReadonlyArray<string>) => {
            const res = await Effect.runPromise(call(app, "POST", "/api-keys", { token, json: { name: `k-${scopes.join()}`, scopes } }))
            return res.body.key as string
          }
          const submitKey = yield* Effect.promise(() => key(["transfers:submit"]))
          const readKey = yield* Effect.promise(() => key(["batches:read"]))
          expect((yield* prepare(app, submitKey, body)).status).toBe(200)
          expect((yield* prepare(app, readKey, body)).status).toBe(403)
          const loner = yield* signIn(app, Keypair.random())
          expect((yield* prepare(app, loner, body)).status).toBe(403)
          const email = yield* call(app, "POST", "/auth/privy", { json: { token: yield* privyToken({ sub: "did:privy:prepare-email" }) } })
          expect((yield* prepare(app, email.body.token, body)).status).toBe(501)
          expect((yield* prepare(app, "", body)).status).toBe(401)
        }))

      it.effect("Stellar RPC down is 502; an account missing from the ledger is 422", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          registered(app, wallet.publicKey(), to)
          app.rpc.setFault({ kind: "http500" }, { methods: ["simulateTransaction"] })
          const down = yield* prepare(app, token, { to, data: data() }).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
          expect(down.status).toBe(502)
          expect(down.body).toMatchObject({ _tag: "UpstreamUnavailable" })
          app.rpc.setFault({ kind: "http500" }, { methods: ["getLedgerEntries"] })
          const unread = yield* prepare(app, token, { to, data: data() }).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
          expect(unread.status).toBe(502)
          app.rpc.removeAccount(wallet.publicKey())
          const gone = yield* prepare(app, token, { to, data: data() })
          expect(gone.status).toBe(422)
          expect(gone.body).toMatchObject({ _tag: "SimulationRefused" })
          expect(gone.body.error).toContain("does not exist")
        }))

      it.effect("generated hostile bodies are 400 with {error}, never 5xx", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          registered(app, wallet.publicKey())
          const field = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.base64String(), fc.array(fc.string(), { maxLength: 2 }))
          const hostile = fc.oneof(
            fc.record({ to: field, data: field }, { requiredKeys: [] }),
            fc.record({ to: fc.constant(Keypair.random().publicKey()), data: fc.constant("AAAA"), validFor: fc.oneof(fc.integer(), fc.double(), fc.string()) }),
            fc.anything()
          )
          const samples = fc.sample(hostile, { numRuns: 120, seed: 16 })
          const answers = yield* Effect.forEach(samples, (json) => prepare(app, token, json), { concurrency: 4 })
          const statuses = answers.map((a) => a.status)
          expect(statuses.filter((s) => s >= 500)).toEqual([])
          for (const answer of answers) {
            expect([200, 400, 422]).toContain(answer.status)
            if (answer.status !== 200) expect(typeof answer.body.error).toBe("string")
          }
          expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(60)
        }))
    }
  )
}

layer(TestAppLive({ SPONSOR_MAX_INNER_FEE: "150" }, { ledgerIntervalMs: 50 }), { excludeTestServices: true })("POST /transfers/prepare under a low fee cap", (it) => {
  it.effect("a transfer whose simulated fee is over SPONSOR_MAX_INNER_FEE is 422 SponsorRefused rule fee, before anything is signed", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const to = Keypair.random().publicKey()
      registered(app, wallet.publicKey(), to)
      const res = yield* prepare(app, token, { to, data: data() })
      expect(res.status).toBe(422)
      expect(res.body).toMatchObject({ _tag: "SponsorRefused", rule: "fee" })
    }))
})
