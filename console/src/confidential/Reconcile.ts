// The books against the chain (issue 31 §2), in a reader's browser, loaded with import() only: each sent payout's
// sealed receipt (the amount, r_e and σ the payer's wallet drew) opened with the reader's sealing key, the transfer
// found among the contractor's events in the service's archive by its σ, and its ciphertext recomputed from the
// receipt and the contractor's viewing key on chain (checkReceipt). A payout is "paid as approved" when the chain
// holds exactly the receipt's ciphertext and the receipt's amount is the approved one. No key of the payer's and
// nothing of the contractor's is needed; the service sees none of it.
import { FetchHttpClient } from "@effect/platform"
import { fetchAccountEvents, payoutVerdict, type ReplayEvent, type Verdict } from "@confidential-payroll/client/confidential"
import { BatchId, type SealedReceipt } from "@confidential-payroll/client/contract"
import { openReceipt } from "@confidential-payroll/client/sealing"
import { Effect } from "effect"
import { clientFor, run } from "../api/Client.ts"
import { formatAmount } from "../lib/Amount.ts"
import type { Unlocked } from "../sealing/Sealing.tsx"
import { chainOf, settle } from "./BrowserWallet.ts"

export type { Verdict }

export interface ReconcileItem {
  readonly payoutId: string
  /** The contractor's address (G…), where the transfer went. */
  readonly to: string
  /** The approved amount, from the batch's sealed amounts. */
  readonly approved: bigint | undefined
}

/** Every sealed receipt of the batch, page by page. */
const receiptsOf = async (session: string, batchId: string): Promise<Array<SealedReceipt>> => {
  const client = clientFor(session)
  const all: Array<SealedReceipt> = []
  let cursor: string | undefined
  do {
    const page = await run(client.sealedReceipts.sealedReceipts({
      path: { id: BatchId.make(batchId) },
      urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) }
    }))
    all.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return all
}

/** Each item's verdict, by payout id. */
export const reconcile = async (
  session: string,
  batchId: string,
  reader: Unlocked,
  items: ReadonlyArray<ReconcileItem>
): Promise<ReadonlyMap<string, Verdict>> => {
  const { deployment, reader: chain } = await chainOf(session)
  const receipts = new Map((await receiptsOf(session, batchId)).map((r) => [r.payoutId as string, r]))
  const eventsOf = new Map<string, Promise<ReadonlyArray<ReplayEvent>>>()
  const events = (account: string) => {
    if (!eventsOf.has(account)) {
      eventsOf.set(account, settle(fetchAccountEvents(window.location.origin, deployment.contract, account, undefined).pipe(
        Effect.map((h) => h.events),
        Effect.provide(FetchHttpClient.layer)
      )))
    }
    return eventsOf.get(account)!
  }
  const verdicts = new Map<string, Verdict>()
  for (const item of items) {
    const sealed = receipts.get(item.payoutId)
    if (sealed === undefined) {
      verdicts.set(item.payoutId, { kind: "unchecked", why: "no receipt was stored for it" })
      continue
    }
    let receipt
    try {
      receipt = await openReceipt(sealed.envelope, { batchId, payoutId: item.payoutId }, reader.memberId, reader.keyPair)
    } catch {
      verdicts.set(item.payoutId, { kind: "unchecked", why: "its receipt was not sealed to you: ask a reader to share it" })
      continue
    }
    const account = await chain.account(item.to)
    verdicts.set(item.payoutId, payoutVerdict({
      receipt, to: item.to, viewingPublicKey: account?.viewingPublicKey, events: await events(item.to), approved: item.approved, format: formatAmount
    }))
  }
  return verdicts
}
