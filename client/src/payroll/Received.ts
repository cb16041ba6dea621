import { Effect } from "effect"
import type { ServiceWallet } from "./ServiceWallet.ts"

/**
 * Each transfer the wallet received, decrypted with its viewing key, by the hash of the transaction that carried it
 * (lower case): a payout's `hash` names it, as the console's Payouts page matches them (ReceivedTotals.ts).
 */
export const receivedByHash = (opened: ServiceWallet) =>
  Effect.gen(function*() {
    const events = yield* opened.events(undefined)
    const hashOf = new Map(events.map((e) => [e.id, (e.txHash ?? "").toLowerCase()]))
    const byHash = new Map<string, bigint>()
    for (const r of opened.wallet.received(events)) {
      const hash = hashOf.get(r.id) ?? ""
      byHash.set(hash, (byHash.get(hash) ?? 0n) + r.amount)
    }
    return byHash
  })
