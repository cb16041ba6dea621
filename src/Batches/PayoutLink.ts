import { Effect, Option } from "effect"
import { ContractorRepo } from "../Contractors/ContractorRepo.ts"
import { notFound } from "../Domain/Errors.ts"
import type { OrgId, PayoutId } from "../Domain/Ids.ts"
import type { StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"
import { BatchRepo } from "./BatchRepo.ts"
import * as Spans from "../Observability/Spans.ts"

const refuse = (error: string) => new SponsorRefused({ rule: "payout", error })

/**
 * Ties a transfer to a payout: checked before the submission is recorded, moved with it in one transaction,
 * and settled with it, batch counters and the contractor's lastPaidAt included.
 */
export class PayoutLink extends Effect.Service<PayoutLink>()("Batches/PayoutLink", {
  effect: Effect.gen(function*() {
    const batches = yield* BatchRepo
    const contractors = yield* ContractorRepo

    /** `to` is the transfer's recipient: `confidential_transfer`'s second argument, which must be the contractor. */
    const check = Spans.fn("PayoutLink.check")(function*(orgId: OrgId, payoutId: PayoutId, to: StellarAddress) {
      const payout = yield* batches.payable(orgId, payoutId)
      if (Option.isNone(payout)) return yield* notFound("payout")
      const { status, batchStatus, address } = payout.value
      if (status !== "ready" && status !== "failed") return yield* refuse(`the payout is ${status}`)
      // A failed payout may be paid again even once its batch completed; the batch then re-opens.
      const open = batchStatus === "ready" || batchStatus === "started" || (batchStatus === "completed" && status === "failed")
      if (!open) return yield* refuse(`the payout's batch is ${batchStatus}; payouts are paid from a ready or started batch`)
      if (address === null || address !== to) {
        return yield* refuse("the transfer's recipient (to) is not the payout's contractor address")
      }
    })

    /** Inside the submission's transaction: the payout is submitted and its batch (re-)started. */
    const markSubmitted = (payoutId: PayoutId, hash: string, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* batches.submitPayout(payoutId, hash, now)
        if (Option.isNone(moved)) return yield* refuse("the payout is no longer ready")
        const started = yield* batches.startBatch(moved.value.batchId, moved.value.previous === "failed", now)
        if (!started) return yield* refuse("the payout's batch is no longer open")
      })

    /** Inside the submission's final transition: settled or failed, with the batch's counters and completion. */
    const markFinal = (payoutId: PayoutId, outcome: { readonly settled: boolean; readonly error?: string }, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* batches.finishPayout(payoutId, outcome, now)
        if (Option.isNone(moved)) return
        if (outcome.settled) yield* contractors.markPaid(moved.value.contractorId, now)
        yield* batches.countFinished(moved.value.batchId, outcome.settled, now)
      })

    return { check, markSubmitted, markFinal } as const
  }),
  dependencies: [BatchRepo.Default, ContractorRepo.Default]
}) {}
