import { Effect, Option } from "effect"
import { ContractorRepo } from "../Contractors/ContractorRepo.ts"
import { type AuditActor, SYSTEM_LEDGER } from "../Domain/Actor.ts"
import { Conflict, notFound } from "../Domain/Errors.ts"
import type { OrgId, PayoutId } from "../Domain/Ids.ts"
import type { StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { BatchRepo } from "./BatchRepo.ts"
import { approvedEnough } from "./Policy.ts"
import * as Spans from "../Observability/Spans.ts"

const refuse = (error: string) => new SponsorRefused({ rule: "payout", error })

/**
 * Ties a transfer to a payout: checked before the submission is recorded (the payroll controls first: a canceled
 * payout, a paused or canceled batch, approvals short are 409, before anything reaches the network), moved with it in
 * one transaction, and settled with it, batch counters, the contractor's lastPaidAt and the audit trail included.
 */
export class PayoutLink extends Effect.Service<PayoutLink>()("Batches/PayoutLink", {
  effect: Effect.gen(function*() {
    const batches = yield* BatchRepo
    const contractors = yield* ContractorRepo
    const audit = yield* AuditTrail

    /** `to` is the transfer's recipient: `confidential_transfer`'s second argument, which must be the contractor. */
    const check = Spans.fn("PayoutLink.check")(function*(orgId: OrgId, payoutId: PayoutId, to: StellarAddress) {
      const payout = yield* batches.payable(orgId, payoutId)
      if (Option.isNone(payout)) return yield* notFound("payout")
      const { status, batchStatus, canceling, approvals, approvalsRequired, address } = payout.value
      if (status === "canceled") return yield* new Conflict({ error: "the payout is canceled; it is never paid" })
      if (batchStatus === "paused") return yield* new Conflict({ error: "the payout's batch is paused; resume it to pay" })
      if (batchStatus === "canceled" || canceling) return yield* new Conflict({ error: "the payout's batch is canceled" })
      if (status !== "ready" && status !== "failed") return yield* refuse(`the payout is ${status}`)
      // A failed payout may be paid again even once its batch completed; the batch then re-opens.
      const open = batchStatus === "ready" || batchStatus === "started" || (batchStatus === "completed" && status === "failed")
      if (!open) return yield* refuse(`the payout's batch is ${batchStatus}; payouts are paid from a ready or started batch`)
      yield* approvedEnough(approvals, approvalsRequired)
      if (address === null || address !== to) {
        return yield* refuse("the transfer's recipient (to) is not the payout's contractor address")
      }
    })

    /** Inside the submission's transaction: the payout is submitted and its batch (re-)started. */
    const markSubmitted = (payoutId: PayoutId, hash: string, now: Date, actor: AuditActor) =>
      Effect.gen(function*() {
        const moved = yield* batches.submitPayout(payoutId, hash, now)
        if (Option.isNone(moved)) return yield* refuse("the payout is no longer ready")
        const { batchId, previous } = moved.value
        const started = yield* batches.startBatch(batchId, previous === "failed", now)
        if (Option.isNone(started)) return yield* refuse("the payout's batch is no longer open")
        const { orgId } = started.value
        yield* audit.appendAll([
          { orgId, actor, action: "payout.submitted", subject: { type: "payout", id: payoutId }, from: previous, to: "submitted" },
          ...(started.value.previous === "started" ? [] : [{
            orgId,
            actor,
            action: "batch.started",
            subject: { type: "batch", id: batchId },
            from: started.value.previous,
            to: "started"
          }])
        ])
      })

    /** Inside the submission's final transition: settled or failed, with the batch's counters and completion. */
    const markFinal = (payoutId: PayoutId, outcome: { readonly settled: boolean; readonly error?: string }, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* batches.finishPayout(payoutId, outcome, now)
        if (Option.isNone(moved)) return
        const { batchId, contractorId, orgId } = moved.value
        if (outcome.settled) yield* contractors.markPaid(contractorId, now)
        const batch = yield* batches.countFinished(batchId, outcome.settled, now)
        const to = outcome.settled ? "settled" : "failed"
        yield* audit.appendAll([
          { orgId, actor: SYSTEM_LEDGER, action: `payout.${to}`, subject: { type: "payout", id: payoutId }, from: "submitted", to },
          ...Option.toArray(Option.map(batch, (b) => ({
            orgId,
            actor: SYSTEM_LEDGER,
            action: `batch.${b.to}`,
            subject: { type: "batch", id: batchId },
            from: b.from,
            to: b.to
          })))
        ])
      })

    return { check, markSubmitted, markFinal } as const
  }),
  dependencies: [BatchRepo.Default, ContractorRepo.Default, AuditTrail.Default]
}) {}
