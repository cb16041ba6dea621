import { Args, Command } from "@effect/cli"
import { Effect } from "effect"
import { openProvingSetup } from "../confidential/node.ts"
import { FileStore } from "../confidential/state/FileStore.ts"
import { walletStateKey } from "../confidential/state/Store.ts"
import { serviceChain } from "../payroll/ServiceChain.ts"
import { sendTokenCall } from "../payroll/TokenCall.ts"
import { amountToDecimal } from "../sealing/Plaintext.ts"
import { parseUsdc } from "./Amount.ts"
import { walletsDir } from "./Config.ts"
import { usage } from "./Failure.ts"
import { common, emit, say, withKey } from "./Shared.ts"
import { escrowAuditorId } from "./EscrowAuditor.ts"
import { readingSetup, registerAccount, walletOf } from "./Wallet.ts"

type Balances = { readonly spendable: bigint; readonly receiving: bigint }

const view = (balances: Balances, opened: { readonly wallet: { readonly state: { readonly pending: ReadonlyArray<unknown>; readonly cursor?: { readonly ledger: number } | undefined } } }) => ({
  spendable: balances.spendable.toString(),
  receiving: balances.receiving.toString(),
  pending: opened.wallet.state.pending.length,
  syncedToLedger: opened.wallet.state.cursor?.ledger
})

const balanceLines = (b: Balances) => [`spendable ${amountToDecimal(b.spendable)} USDC`, `receiving ${amountToDecimal(b.receiving)} USDC`]

const status = Command.make("status", common, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const account = signed.key.publicKey()
    const registered = (yield* Effect.tryPromise({ try: () => chain.reader.account(account), catch: (e) => e })) !== undefined
    if (!registered) return yield* emit(c, { account, registered }, () => [`${account} is not registered with the token: payroll treasury register`])
    const { opened } = yield* walletOf(signed, yield* readingSetup)
    const balances = yield* opened.catchUp()
    yield* emit(c, { account, registered, ...view(balances, opened) }, () => [
      `${account}, registered`, ...balanceLines(balances), `${opened.wallet.state.pending.length} pending spend(s)`
    ])
  })).pipe(Command.withDescription("The paying wallet: registered or not, its balances decrypted, pending spends"))

const register = Command.make("register", common, (c) =>
  Effect.scoped(Effect.gen(function*() {
    const signed = yield* withKey(c)
    const auditorId = yield* escrowAuditorId(signed)
    yield* say(c, "Proving the registration (a minute or two)…")
    const hash = yield* registerAccount(signed, yield* openProvingSetup(), auditorId)
    yield* emit(c, { account: signed.key.publicKey(), registered: true, hash: hash ?? null }, () => [
      hash === undefined ? "Already registered." : `Registered (transaction ${hash}).`
    ])
  }))).pipe(Command.withDescription("Register the paying wallet with the confidential token (a proof made here, sponsored)"))

const amount = Args.text({ name: "amount" }).pipe(Args.withDescription("USDC, up to 7 decimals"))

const deposit = Command.make("deposit", { ...common, amount }, (c) =>
  Effect.gen(function*() {
    const units = parseUsdc(c.amount)
    if (units === undefined || units === 0n) return yield* usage(`${JSON.stringify(c.amount)} is not an amount: give USDC with up to 7 decimals, e.g. 125.50`)
    const signed = yield* withKey(c)
    const account = signed.key.publicKey()
    const { chain, opened } = yield* walletOf(signed, yield* readingSetup)
    const hash = yield* sendTokenCall(signed.baseUrl, signed.token, chain, signed.key, { fn: "deposit", from: account, to: account, amount: units })
    const balances = yield* opened.catchUp()
    yield* emit(c, { hash, ...view(balances, opened) }, () => [`Deposited ${amountToDecimal(units)} USDC (transaction ${hash}).`, ...balanceLines(balances)])
  })).pipe(Command.withDescription("Deposit public USDC into the wallet's receiving balance"))

const merge = Command.make("merge", common, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const { chain, opened } = yield* walletOf(signed, yield* readingSetup)
    // A merge moves the spendable commitment pending spends were proven on: none of them can land after it.
    const voidsPending = opened.wallet.state.pending.length > 0
    const hash = yield* sendTokenCall(signed.baseUrl, signed.token, chain, signed.key, { fn: "merge", account: signed.key.publicKey() })
    const balances = yield* opened.catchUp(() => true, voidsPending ? "rebuild" : "sync")
    yield* emit(c, { hash, ...view(balances, opened) }, () => [`Merged (transaction ${hash}).`, ...balanceLines(balances)])
  })).pipe(Command.withDescription("Merge the receiving balance into the spendable one, which payouts spend"))

const rebuild = Command.make("rebuild", common, (c) =>
  Effect.gen(function*() {
    const signed = yield* withKey(c)
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    // Whatever openings are kept here (lost, altered, sealed by another version) are forgotten and replayed.
    yield* Effect.promise(() => new FileStore(walletsDir()).delete(walletStateKey(chain.deployment.contract, signed.key.publicKey())))
    const { opened } = yield* walletOf(signed, yield* readingSetup)
    const balances = yield* opened.catchUp(() => true, "rebuild")
    yield* emit(c, view(balances, opened), () => ["Rebuilt from the chain's events.", ...balanceLines(balances)])
  })).pipe(Command.withDescription("Rebuild the wallet's openings from every event since its registration"))

export const treasury = Command.make("treasury").pipe(
  Command.withDescription("The paying wallet: status, register, deposit, merge, rebuild"),
  Command.withSubcommands([status, register, deposit, merge, rebuild])
)
