// The books against the chain, as the console's reconciliation does (console/src/confidential/Reconcile.ts): each
// sent payout's sealed receipt opened with the reader's sealing key, its transfer found among the contractor's events
// in the service's archive by σ, and its ciphertext recomputed from the receipt and the contractor's viewing key on
// chain (checkReceipt). "Paid as approved" when the chain holds exactly the receipt's ciphertext and the receipt's
// amount is the approved one.
import { Effect } from "effect"
import type { SealedReceipt } from "../../../src/Domain/SealedReceipts.ts"
import { BatchId } from "../../../src/Domain/Ids.ts"
import { makeClient } from "../Client.ts"
import { fetchAccountEvents } from "../confidential/state/ArchiveEvents.ts"
import { payoutVerdict, type Verdict } from "../confidential/state/ReconcileVerdict.ts"
import type { ReplayEvent } from "../confidential/state/Replay.ts"
import { amountToDecimal } from "../sealing/Plaintext.ts"
import { openReceipt } from "../sealing/SealedReceipt.ts"
import type { SealingMember } from "./SealingMember.ts"
import type { ServiceChain } from "./ServiceChain.ts"

export type { Verdict }

export interface ReconcileItem {
  readonly payoutId: string
  /** The contractor's address (G…), where the transfer went. */
  readonly to: string
  /** The approved amount, from the batch's sealed amounts. */
  readonly approved: bigint | undefined
}

/** Each item's verdict, by payout id. Provide an `HttpClient`. */
export const reconcileBatch = (baseUrl: string, token: string, chain: ServiceChain, reader: SealingMember, batchId: string, items: ReadonlyArray<ReconcileItem>) =>
  Effect.gen(function*() {
    const client = yield* makeClient(baseUrl, token)
    const receipts = new Map<string, SealedReceipt>()
    let cursor: string | undefined
    do {
      const page = yield* client.sealedReceipts.sealedReceipts({
        path: { id: BatchId.make(batchId) },
        urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) }
      })
      for (const r of page.items) receipts.set(r.payoutId, r)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    const eventsOf = new Map<string, ReadonlyArray<ReplayEvent>>()
    const verdicts = new Map<string, Verdict>()
    for (const item of items) {
      const sealed = receipts.get(item.payoutId)
      if (sealed === undefined) {
        verdicts.set(item.payoutId, { kind: "unchecked", why: "no receipt was stored for it" })
        continue
      }
      const opened = yield* Effect.either(Effect.tryPromise(() => openReceipt(sealed.envelope, { batchId, payoutId: item.payoutId }, reader.memberId, reader.keyPair)))
      if (opened._tag === "Left") {
        verdicts.set(item.payoutId, { kind: "unchecked", why: "its receipt was not sealed to you: ask a reader to share it" })
        continue
      }
      const receipt = opened.right
      if (!eventsOf.has(item.to)) eventsOf.set(item.to, (yield* fetchAccountEvents(baseUrl, chain.deployment.contract, item.to, undefined)).events)
      const account = yield* Effect.tryPromise({ try: () => chain.reader.account(item.to), catch: (e) => e })
      verdicts.set(item.payoutId, payoutVerdict({
        receipt, to: item.to, viewingPublicKey: account?.viewingPublicKey, events: eventsOf.get(item.to)!, approved: item.approved, format: amountToDecimal
      }))
    }
    return verdicts
  }).pipe(Effect.withSpan("Payroll.reconcileBatch"))
