import type { EventType } from "@confidential-payroll/client/contract"

/** What each event type reports, in a few words for the form (the contract's own description, shortened). */
export const EVENT_WORDS: Readonly<Record<EventType, string>> = {
  "contractor.ready": "a contractor can be paid",
  "payout.settled": "a payout's transfer settled",
  "payout.failed": "a payout's transfer failed",
  "payout.canceled": "a payout was canceled before it was sent",
  "batch.completed": "every payout of a batch is final",
  "batch.approved": "a batch received an approval",
  "batch.rejected": "a batch was rejected, with the reason",
  "batch.paused": "a batch was paused",
  "batch.resumed": "a batch was resumed",
  "batch.canceled": "a canceled batch has nothing in flight any more",
  "batch_run.completed": "a payroll run (POST /batch) ended",
  "audit.checkpoint": "the audit trail verified, its head signed (daily by default)"
}
