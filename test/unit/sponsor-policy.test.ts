import { describe, expect, it } from "@effect/vitest"
import {
  Account, Address, Contract, FeeBumpTransaction, Keypair, nativeToScVal, Networks, Operation, StrKey, TransactionBuilder, xdr
} from "@stellar/stellar-sdk"
import { Duration, Effect, Either } from "effect"
import { randomBytes } from "node:crypto"
import { Sponsor } from "../../src/Transfers/Sponsor.ts"
import { TOKEN_CALLS, type TokenCallKind, tokenCallOf } from "../../src/Transfers/SponsorPolicy.ts"
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

const REGISTER_ONLY: ReadonlySet<TokenCallKind> = new Set(["register"])
const EVERY_CALL: ReadonlySet<TokenCallKind> = new Set(TOKEN_CALLS)

const ownRuleOf = (shape: Shape, offered: ReadonlySet<TokenCallKind> = EVERY_CALL) =>
  Effect.map(Sponsor, (sponsor) =>
    Either.match(sponsor.checkOwnCall(transaction(shape), NOW, offered), { onLeft: (e) => e.rule, onRight: (call) => `sponsored ${call.kind}` }))

const registerRuleOf = (shape: Shape) =>
  Effect.map(ownRuleOf({ fn: "register", ...shape }, REGISTER_ONLY), (rule) => rule === "sponsored register" ? "sponsored" : rule)

const registerArgs = (account: string) => [address(account), xdr.ScVal.scvU32(0), bytes]
const i128 = (v: bigint) => nativeToScVal(v, { type: "i128" })
const depositArgs = (from: string, to = from, amount = 600n) => [address(from), address(to), i128(amount)]
const withdrawArgs = (from: string, to = from, amount = 100n) => [address(from), address(to), i128(amount), bytes]

/** The invocation a deposit authorizes beneath it on a real network: the underlying token's transfer into the token. */
const underlyingTransfer = (from: string, amount: xdr.ScVal, to = TOKEN, fn = "transfer") =>
  new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({
        contractAddress: Address.fromString(StrKey.encodeContract(Buffer.alloc(32, 9))).toScAddress(),
        functionName: fn,
        args: [address(from), address(to), amount]
      })
    ),
    subInvocations: []
  })

const sourceAuth = (fn: string, args: ReadonlyArray<xdr.ScVal>, sub: Array<xdr.SorobanAuthorizedInvocation>) =>
  new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: Address.fromString(TOKEN).toScAddress(), functionName: fn, args: [...args] })
      ),
      subInvocations: sub
    })
  })

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
        const call = sponsor.checkOwnCall(transaction({ fn: "register", args: registerArgs(wallet.publicKey()) }), NOW, REGISTER_ONLY)
        expect(Either.getOrThrow(call)).toEqual({ kind: "register", contract: TOKEN, account: wallet.publicKey(), maxTime: NOW_S + 60 })
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
  it.layer(SponsorTest)("a wallet's own token calls", (it) => {
    const me = wallet.publicKey()
    const other = Keypair.random().publicKey()

    it.effect("pays for register, deposit, merge and withdraw with every account argument the source", () =>
      Effect.gen(function*() {
        expect(yield* ownRuleOf({ fn: "register", args: registerArgs(me) })).toBe("sponsored register")
        expect(yield* ownRuleOf({ fn: "deposit", args: depositArgs(me) })).toBe("sponsored deposit")
        expect(yield* ownRuleOf({ fn: "merge", args: [address(me)] })).toBe("sponsored merge")
        expect(yield* ownRuleOf({ fn: "withdraw", args: withdrawArgs(me) })).toBe("sponsored withdraw")
        expect(yield* ownRuleOf({ fn: "deposit", args: depositArgs(me, me, 0n) })).toBe("sponsored deposit")
      }))

    it.effect("function: a transfer or another function; a call not offered", () =>
      Effect.gen(function*() {
        expect(yield* ownRuleOf({})).toBe("function")
        expect(yield* ownRuleOf({ fn: "confidential_transfer_from", args: [address(me)] })).toBe("function")
        expect(yield* ownRuleOf({ fn: "merge", args: [address(me)] }, REGISTER_ONLY)).toBe("function")
        expect(yield* ownRuleOf({ operation: Operation.bumpSequence({ bumpTo: "5" }) })).toBe("operation")
        expect(yield* ownRuleOf({ fn: "merge", args: [address(me)], contract: StrKey.encodeContract(randomBytes(32)) })).toBe("contract")
      }))

    it.effect("arguments: another account anywhere, a negative amount, a wrong shape", () =>
      Effect.gen(function*() {
        for (const [fn, args] of [
          ["deposit", depositArgs(me, other)],
          ["deposit", depositArgs(other, me)],
          ["merge", [address(other)]],
          ["withdraw", withdrawArgs(me, other)],
          ["withdraw", withdrawArgs(other, me)],
          ["register", registerArgs(other)]
        ] as const) {
          expect(yield* ownRuleOf({ fn, args, auth: [] })).toBe("arguments")
        }
        expect(yield* ownRuleOf({ fn: "deposit", args: depositArgs(me, me, -1n) })).toBe("arguments")
        expect(yield* ownRuleOf({ fn: "withdraw", args: withdrawArgs(me, me, -1n) })).toBe("arguments")
        expect(yield* ownRuleOf({ fn: "deposit", args: [address(me), address(me), xdr.ScVal.scvU32(5)] })).toBe("arguments")
        expect(yield* ownRuleOf({ fn: "merge", args: [address(me), address(me)] })).toBe("arguments")
        expect(yield* ownRuleOf({ fn: "withdraw", args: depositArgs(me) })).toBe("arguments")
      }))

    it.effect("auth: a deposit may carry the underlying token's transfer into the token beneath it, and nothing else", () =>
      Effect.gen(function*() {
        const args = depositArgs(me)
        const amount = args[2]!
        expect(yield* ownRuleOf({ fn: "deposit", args, auth: [sourceAuth("deposit", args, [underlyingTransfer(me, amount)])] }))
          .toBe("sponsored deposit")
        expect(yield* ownRuleOf({ fn: "deposit", args, auth: [sourceAuth("deposit", args, [underlyingTransfer(other, amount)])] })).toBe("auth")
        expect(yield* ownRuleOf({ fn: "deposit", args, auth: [sourceAuth("deposit", args, [underlyingTransfer(me, i128(601n))])] })).toBe("auth")
        expect(yield* ownRuleOf({ fn: "deposit", args, auth: [sourceAuth("deposit", args, [underlyingTransfer(me, amount, other)])] })).toBe("auth")
        expect(yield* ownRuleOf({ fn: "deposit", args, auth: [sourceAuth("deposit", args, [underlyingTransfer(me, amount, TOKEN, "approve")])] }))
          .toBe("auth")
        const twice = [underlyingTransfer(me, amount), underlyingTransfer(me, amount)]
        expect(yield* ownRuleOf({ fn: "deposit", args, auth: [sourceAuth("deposit", args, twice)] })).toBe("auth")
        const merge = [address(me)]
        expect(yield* ownRuleOf({ fn: "merge", args: merge, auth: [sourceAuth("merge", merge, [underlyingTransfer(me, amount)])] })).toBe("auth")
        expect(yield* ownRuleOf({ fn: "merge", args: merge, auth: [addressAuth(other, TOKEN, "merge", merge)] })).toBe("auth")
      }))

    it.effect("fee, time bounds: as for a transfer", () =>
      Effect.gen(function*() {
        expect(yield* ownRuleOf({ fn: "merge", args: [address(me)], fee: 5_001 })).toBe("fee")
        expect(yield* ownRuleOf({ fn: "merge", args: [address(me)], maxTime: NOW_S + 601 })).toBe("timebounds")
      }))

    it("tokenCallOf names the token call by its function alone", () => {
      expect(tokenCallOf(transaction({ fn: "withdraw", args: withdrawArgs(other) }))).toBe("withdraw")
      expect(tokenCallOf(transaction())).toBeUndefined()
      expect(tokenCallOf(transaction({ operation: Operation.bumpSequence({ bumpTo: "5" }) }))).toBeUndefined()
    })
  })
})
