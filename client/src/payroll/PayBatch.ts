// Paying an approved batch's payouts from the payer's own wallet, step by step as the console's "Pay batch" does
// (console/src/confidential/PayBatch.ts), with any signer: each payout proven on the newest spendable opening, its
// receipt sealed among the readers and stored before anything is sent, then prepared, signed, sent and followed to
// the ledger by the service's just-in-time runner (runSignedPayroll, with its payoutId).
//
// Never twice: only payouts the service has as `ready` or `failed` are paid, and nothing while one is `submitted`
// (payablePayouts). A proof made but never sent (the process stopped in between) leaves a pending spend in the
// openings: at the next run, with nothing in flight, it is dropped before proving again.
import { Effect, Encoding } from "effect"
import type { Payout } from "../../../src/Domain/Batch.ts"
import { BatchId, type PayoutId } from "../../../src/Domain/Ids.ts"
import { makeClient } from "../Client.ts"
import { type PayrollSigner, runSignedPayroll, type SignedResult } from "../PayrollJustInTime.ts"
import type { Recipient } from "../sealing/Envelope.ts"
import { sealReceipt } from "../sealing/SealedReceipt.ts"
import { envelopePayload } from "./SealingMember.ts"
import type { ServiceWallet } from "./ServiceWallet.ts"

export interface PayItem {
  readonly payoutId: PayoutId
  readonly to: string
  readonly amount: bigint
}

export type PayoutStep = "proving" | "signing" | "sent" | "failed"

/** What of a batch's payouts may be paid now: the ones `ready` or `failed`, none while any is `submitted`. */
export const payablePayouts = (payouts: ReadonlyArray<Payout>) => ({
  inFlight: payouts.filter((p) => p.status === "submitted"),
  payable: payouts.filter((p) => p.status === "ready" || p.status === "failed")
})

export interface PayBatchOptions {
  readonly baseUrl: string
  readonly token: string
  readonly opened: ServiceWallet
  readonly batchId: string
  /** Whom each payout's receipt is sealed to: the members who may read amounts, with their sealing keys. */
  readonly recipients: ReadonlyArray<Recipient>
  readonly items: ReadonlyArray<PayItem>
  readonly sign: PayrollSigner
  readonly onPayout?: (payoutId: PayoutId, step: PayoutStep, detail?: string) => void
}

/** Pays `items` in order, one transfer per ledger, stopping at the first that does not land; each one's result. */
export const payBatch = (options: PayBatchOptions) =>
  Effect.gen(function*() {
    const { wallet } = options.opened
    const note = options.onPayout ?? (() => undefined)
    const client = yield* makeClient(options.baseUrl, options.token)
    // Nothing is in flight (the caller checked): a spend still pending was proven and never sent.
    const stale = wallet.state.pending[0]
    if (stale !== undefined) yield* wallet.abandon(stale.commitment)
    const results: Array<SignedResult & { readonly payoutId: PayoutId }> = []
    for (const item of options.items) {
      note(item.payoutId, "proving")
      const proven = yield* wallet.proveTransferWithReceipt(item.to, item.amount)
      // The receipt is stored before the transfer is sent, as the openings are: a transfer the books cannot check is
      // never sent. (A failed payout paid again is a new proof, and its new receipt replaces this one.)
      const receipt = yield* Effect.tryPromise({
        try: () => sealReceipt({ batchId: options.batchId, payoutId: item.payoutId, ...proven.receipt }, options.recipients),
        catch: (e) => e
      })
      yield* client.sealedReceipts.sealReceipt({
        path: { id: BatchId.make(options.batchId), payoutId: item.payoutId },
        payload: yield* envelopePayload(receipt)
      })
      note(item.payoutId, "signing")
      const [result] = yield* runSignedPayroll(options.baseUrl, options.token, [
        { to: item.to, data: Encoding.encodeBase64(proven.data), payoutId: item.payoutId }
      ], { sign: options.sign })
      const outcome = { ...result!, payoutId: item.payoutId }
      results.push(outcome)
      if (outcome.status === "SUCCESS") {
        note(item.payoutId, "sent", outcome.hash)
        continue
      }
      // It did not land: its pending spend is forgotten, and the run stops for the payer to look.
      const mine = wallet.state.pending.at(-1)
      if (mine !== undefined) yield* wallet.abandon(mine.commitment)
      note(item.payoutId, "failed", outcome.error ?? outcome.status)
      break
    }
    return results
  }).pipe(Effect.withSpan("Payroll.payBatch"))
