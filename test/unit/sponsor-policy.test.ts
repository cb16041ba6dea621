import { describe, expect, it } from "@effect/vitest"
import { Account, Address, Contract, FeeBumpTransaction, Keypair, Networks, Operation, StrKey, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Duration, Effect, Either } from "effect"
import { randomBytes } from "node:crypto"
import { Sponsor } from "../../src/Transfers/Sponsor.ts"
import { sourceAuthorization } from "../support/ConfidentialData.ts"

const TOKEN = StrKey.encodeContract(randomBytes(32))
const NOW = new Date(1_800_000_000_000)
const NOW_S = NOW.getTime() / 1000
const sponsorKey = Keypair.random()
const wallet = Keypair.random()
const payee = Keypair.random().publicKey()

const SponsorTest = Sponsor.layerTest(
  { allowedContracts: new Set([TOKEN]), maxInnerFee: 5_000, quota: 3, quotaWindow: Duration.hours(24) },
  sponsorKey,
  Networks.TESTNET
)

const address = (a: string) => Address.fromString(a).toScVal()
const bytes = xdr.ScVal.scvBytes(Buffer.alloc(32, 7))

interface Shape {
  readonly fn?: string
  readonly contract?: string
  readonly args?: ReadonlyArray<xdr.ScVal>
  readonly auth?: ReadonlyArray<xdr.SorobanAuthorizationEntry>
  readonly fee?: number
  readonly maxTime?: number
  readonly operation?: xdr.Operation
}

/** A signed one-operation transaction of `wallet`; by default exactly what the sponsor pays for. */
const transaction = (shape: Shape = {}) => {
  const contract = shape.contract ?? TOKEN
  const fn = shape.fn ?? "confidential_transfer"
  const args = shape.args ?? [address(wallet.publicKey()), address(payee), bytes]
  const call = new Contract(contract).call(fn, ...args)
  const op = shape.operation ?? withAuth(call, shape.auth ?? [sourceAuthorization(contract, fn, args)])
  const tx = new TransactionBuilder(new Account(wallet.publicKey(), "41"), {
    fee: String(shape.fee ?? 1_001),
    networkPassphrase: Networks.TESTNET,
    timebounds: { minTime: 0, maxTime: shape.maxTime ?? NOW_S + 60 }
  }).addOperation(op).build()
  tx.sign(wallet)
  return tx
}

const withAuth = (op: xdr.Operation, auth: ReadonlyArray<xdr.SorobanAuthorizationEntry>) => {
  if (op.body.type !== "invokeHostFunction") return op
  const invoke = new xdr.InvokeHostFunctionOp({ hostFunction: op.body.invokeHostFunctionOp.hostFunction, auth: [...auth] })
  return new xdr.Operation({ sourceAccount: op.sourceAccount, body: xdr.OperationBody.invokeHostFunction(invoke) })
}

const addressAuth = (who: string, contract: string, fn: string, args: ReadonlyArray<xdr.ScVal>, sub: Array<xdr.SorobanAuthorizedInvocation> = []) =>
  new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(new xdr.SorobanAddressCredentials({
      address: Address.fromString(who).toScAddress(), nonce: 1n, signatureExpirationLedger: 10_000, signature: xdr.ScVal.scvVoid()
    })),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: Address.fromString(contract).toScAddress(), functionName: fn, args: [...args] })
      ),
      subInvocations: sub
    })
  })

const ruleOf = (shape: Shape) =>
  Effect.map(Sponsor, (sponsor) => Either.match(sponsor.check(transaction(shape), NOW), { onLeft: (e) => e.rule, onRight: () => "sponsored" }))

const registerRuleOf = (shape: Shape) =>
  Effect.map(Sponsor, (sponsor) =>
    Either.match(sponsor.checkRegister(transaction({ fn: "register", ...shape }), NOW), { onLeft: (e) => e.rule, onRight: () => "sponsored" }))

const registerArgs = (account: string) => [address(account), xdr.ScVal.scvU32(0), bytes]

describe("Sponsor", () => {
  it.layer(SponsorTest)("policy", (it) => {
    it.effect("pays for exactly confidential_transfer(from = source, to, data) on an allowed contract", () =>
      Effect.gen(function*() {
        const sponsor = yield* Sponsor
        const call = sponsor.check(transaction(), NOW)
        expect(Either.getOrThrow(call)).toEqual({ contract: TOKEN, from: wallet.publicKey(), to: payee, maxTime: NOW_S + 60 })
        expect(yield* ruleOf({ auth: [] })).toBe("sponsored")
        expect(yield* ruleOf({ args: [address(wallet.publicKey()), address(TOKEN), bytes] })).toBe("sponsored")
      }))

    it.effect("operation: anything but invokeHostFunction", () =>
      Effect.gen(function*() {
        expect(yield* ruleOf({ operation: Operation.bumpSequence({ bumpTo: "5" }) })).toBe("operation")
      }))

    it.effect("function: another function of the contract", () =>
      Effect.gen(function*() {
        expect(yield* ruleOf({ fn: "transfer" })).toBe("function")
        expect(yield* ruleOf({ fn: "confidential_transfer_2" })).toBe("function")
      }))

    it.effect("contract: a contract off the allow-list", () =>
      Effect.gen(function*() {
        expect(yield* ruleOf({ contract: StrKey.encodeContract(randomBytes(32)) })).toBe("contract")
      }))

    it.effect("arguments: wrong count, kinds, or a `from` other than the source", () =>
      Effect.gen(function*() {
        const other = Keypair.random().publicKey()
        expect(yield* ruleOf({ args: [address(wallet.publicKey()), address(payee)] })).toBe("arguments")
        expect(yield* ruleOf({ args: [address(wallet.publicKey()), address(payee), bytes, bytes] })).toBe("arguments")
        expect(yield* ruleOf({ args: [address(wallet.publicKey()), bytes, bytes] })).toBe("arguments")
        expect(yield* ruleOf({ args: [address(wallet.publicKey()), address(payee), xdr.ScVal.scvU32(1)] })).toBe("arguments")
        expect(yield* ruleOf({ args: [address(other), address(payee), bytes], auth: [] })).toBe("arguments")
      }))

    it.effect("auth: someone else's entry, another call, or sub-invocations", () =>
      Effect.gen(function*() {
        const args = [address(wallet.publicKey()), address(payee), bytes]
        const stranger = Keypair.random().publicKey()
        expect(yield* ruleOf({ auth: [addressAuth(wallet.publicKey(), TOKEN, "confidential_transfer", args)] })).toBe("sponsored")
        expect(yield* ruleOf({ auth: [addressAuth(stranger, TOKEN, "confidential_transfer", args)] })).toBe("auth")
        expect(yield* ruleOf({ auth: [addressAuth(wallet.publicKey(), TOKEN, "transfer", args)] })).toBe("auth")
        const nested = addressAuth(wallet.publicKey(), TOKEN, "transfer", args).rootInvocation
        expect(yield* ruleOf({ auth: [addressAuth(wallet.publicKey(), TOKEN, "confidential_transfer", args, [nested])] })).toBe("auth")
      }))

    it.effect("fee: an inner fee above the cap", () =>
      Effect.gen(function*() {
        expect(yield* ruleOf({ fee: 5_000 })).toBe("sponsored")
        expect(yield* ruleOf({ fee: 5_001 })).toBe("fee")
      }))

    it.effect("timebounds: none, passed, or more than 10 minutes ahead", () =>
      Effect.gen(function*() {
        expect(yield* ruleOf({ maxTime: 0 })).toBe("timebounds")
        expect(yield* ruleOf({ maxTime: NOW_S })).toBe("timebounds")
        expect(yield* ruleOf({ maxTime: NOW_S + 600 })).toBe("sponsored")
        expect(yield* ruleOf({ maxTime: NOW_S + 601 })).toBe("timebounds")
      }))

    it.effect("quota: the window ends now and spans SPONSOR_QUOTA_WINDOW; exhausted is rule quota", () =>
      Effect.gen(function*() {
        const sponsor = yield* Sponsor
        expect(sponsor.reservation(NOW)).toEqual({ limit: 3, since: new Date(NOW.getTime() - 24 * 3600_000), now: NOW })
        const refused = sponsor.quotaExhausted()
        expect(refused.rule).toBe("quota")
        expect(refused.error).toContain("3 sponsored transfers")
      }))

    it.effect("fee-bump: outer fee exactly twice the inner, paid and signed by the sponsor", () =>
      Effect.gen(function*() {
        const sponsor = yield* Sponsor
        const inner = transaction({ fee: 1_001 })
        const bump = new FeeBumpTransaction(sponsor.feeBump(inner).toXDR(), Networks.TESTNET)
        expect(bump.fee).toBe("2002")
        expect(bump.feeSource).toBe(sponsorKey.publicKey())
        expect(sponsor.account).toBe(sponsorKey.publicKey())
        expect(sponsorKey.verify(Buffer.from(bump.hash()), Buffer.from(bump.signatures[0]!.signature.toBytes()))).toBe(true)
        expect(Buffer.from(bump.innerTransaction.hash()).equals(Buffer.from(inner.hash()))).toBe(true)
      }))
  })

  it.layer(SponsorTest)("a contractor's register", (it) => {
    it.effect("pays for exactly register(account = source, auditor_id, data) on an allowed contract", () =>
      Effect.gen(function*() {
        const sponsor = yield* Sponsor
        const call = sponsor.checkRegister(transaction({ fn: "register", args: registerArgs(wallet.publicKey()) }), NOW)
        expect(Either.getOrThrow(call)).toEqual({ contract: TOKEN, account: wallet.publicKey(), maxTime: NOW_S + 60 })
      }))

    it.effect("each rule of a transfer holds for a register, and a transfer is not a register", () =>
      Effect.gen(function*() {
        const args = registerArgs(wallet.publicKey())
        expect(yield* registerRuleOf({ args: [address(wallet.publicKey()), address(payee), bytes] })).toBe("arguments")
        expect(yield* registerRuleOf({ fn: "confidential_transfer", args })).toBe("function")
        expect(yield* ruleOf({ fn: "register", args })).toBe("function")
        expect(yield* registerRuleOf({ args: registerArgs(Keypair.random().publicKey()), auth: [] })).toBe("arguments")
        expect(yield* registerRuleOf({ args: [address(wallet.publicKey()), bytes, bytes] })).toBe("arguments")
        expect(yield* registerRuleOf({ args: [address(wallet.publicKey()), xdr.ScVal.scvU32(0)] })).toBe("arguments")
        expect(yield* registerRuleOf({ args, contract: StrKey.encodeContract(randomBytes(32)) })).toBe("contract")
        expect(yield* registerRuleOf({ args, auth: [addressAuth(Keypair.random().publicKey(), TOKEN, "register", args)] })).toBe("auth")
        expect(yield* registerRuleOf({ args, auth: [addressAuth(wallet.publicKey(), TOKEN, "confidential_transfer", args)] })).toBe("auth")
        expect(yield* registerRuleOf({ args, fee: 5_001 })).toBe("fee")
        expect(yield* registerRuleOf({ args, maxTime: NOW_S + 601 })).toBe("timebounds")
        expect(yield* registerRuleOf({ args })).toBe("sponsored")
      }))
  })
})
