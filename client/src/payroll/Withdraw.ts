// A contractor's withdrawal to their public USDC balance, as the console's Payouts page makes it
// (console/src/confidential/Withdraw.ts): when the spendable balance is short of the amount and the two balances
// cover it, a merge first; then the `withdraw` proof on the spendable opening, signed and sponsored (POST /token/calls).
import type { Keypair } from "@stellar/stellar-sdk"
import { Data, Effect } from "effect"
import { amountToDecimal } from "../sealing/Plaintext.ts"
import type { ServiceChain } from "./ServiceChain.ts"
import type { ServiceWallet } from "./ServiceWallet.ts"
import { sendTokenCall } from "./TokenCall.ts"

/** More than both balances hold. */
export class WithdrawTooLarge extends Data.TaggedError("WithdrawTooLarge")<{ readonly message: string }> {}

/** Sent and possibly on its way to the ledger: its pending spend must stay until the chain says. */
const MAYBE_LANDED = new Set(["TransferTimeout", "UpstreamUnavailable", "RequestError", "ResponseError"])

export const withdrawToPublic = (options: {
  readonly baseUrl: string
  readonly token: string
  readonly chain: ServiceChain
  readonly key: Keypair
  readonly opened: ServiceWallet
  readonly amount: bigint
  readonly onStage?: (stage: "merging" | "proving" | "sending") => void
}) =>
  Effect.gen(function*() {
    const { opened, amount, key } = options
    const account = key.publicKey()
    const stage = options.onStage ?? (() => undefined)
    let balances = yield* opened.catchUp()
    // Nothing is in flight: a spend still pending was proven once and never sent.
    const stale = opened.wallet.state.pending[0]
    if (stale !== undefined) yield* opened.wallet.abandon(stale.commitment)
    if (amount > balances.spendable + balances.receiving) {
      return yield* new WithdrawTooLarge({ message: `at most ${amountToDecimal(balances.spendable + balances.receiving)} USDC can be withdrawn` })
    }
    let merged: string | undefined
    if (amount > balances.spendable) {
      stage("merging")
      merged = yield* sendTokenCall(options.baseUrl, options.token, options.chain, key, { fn: "merge", account })
      balances = yield* opened.catchUp((b) => b.spendable >= amount)
    }
    stage("proving")
    const data = yield* opened.wallet.proveWithdraw(amount)
    const pending = opened.wallet.state.pending.at(-1)
    stage("sending")
    const hash = yield* sendTokenCall(options.baseUrl, options.token, options.chain, key, { fn: "withdraw", from: account, to: account, amount, data }).pipe(
      Effect.tapError((error) => {
        const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
        return pending === undefined || MAYBE_LANDED.has(tag) ? Effect.void : opened.wallet.abandon(pending.commitment)
      })
    )
    balances = yield* opened.catchUp()
    return { hash, merged, balances }
  }).pipe(Effect.withSpan("Payroll.withdrawToPublic"))
