import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { notFound } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { SponsorRefused } from "../Domain/Transfer.ts"

const refuse = (error: string) => new SponsorRefused({ rule: "payout", error })

/**
 * Ties a transfer to a payout: checked before the submission is recorded, moved with it in one transaction,
 * and settled with it, batch counters and the contractor's lastPaidAt included.
 */
export class PayoutLink extends Effect.Service<PayoutLink>()("Batches/PayoutLink", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** `to` is the transfer's recipient: `confidential_transfer`'s second argument, which must be the contractor. */
    const check = Effect.fn("PayoutLink.check")(function*(orgId: OrgId, payoutId: string, to: string) {
      const rows = yield* sql<{ status: string; batchStatus: string; address: string | null }>`
        SELECT p.status, b.status AS batch_status, c.address
        FROM payouts p JOIN batches b ON b.id = p.batch_id JOIN contractors c ON c.id = p.contractor_id
        WHERE p.id = ${payoutId} AND p.org_id = ${orgId}`.pipe(Effect.orDie)
      const payout = Option.fromNullable(rows[0])
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
    const markSubmitted = (payoutId: string, hash: string, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* sql<{ batchId: string; previous: string }>`
          WITH prev AS (SELECT id, status FROM payouts WHERE id = ${payoutId} FOR UPDATE)
          UPDATE payouts p SET status = 'submitted', hash = ${hash}, error = NULL, updated_at = ${now}
          FROM prev WHERE p.id = prev.id AND prev.status IN ('ready', 'failed')
          RETURNING p.batch_id, prev.status AS previous`
        const row = moved[0]
        if (row === undefined) return yield* refuse("the payout is no longer ready")
        const started = yield* sql`
          UPDATE batches SET
            status = 'started',
            started_at = coalesce(started_at, ${now}),
            completed_at = NULL,
            failed_count = failed_count - ${row.previous === "failed" ? 1 : 0}
          WHERE id = ${row.batchId}
            AND (status IN ('ready', 'started') OR (status = 'completed' AND ${row.previous === "failed"}))
          RETURNING id`
        if (started.length === 0) return yield* refuse("the payout's batch is no longer open")
      })

    /** Inside the submission's final transition: settled or failed, with the batch's counters and completion. */
    const markFinal = (payoutId: string, outcome: { readonly settled: boolean; readonly error?: string }, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* sql<{ batchId: string; contractorId: string }>`
          UPDATE payouts SET status = ${outcome.settled ? "settled" : "failed"}, error = ${outcome.error ?? null}, updated_at = ${now}
          WHERE id = ${payoutId} AND status = 'submitted'
          RETURNING batch_id, contractor_id`
        const row = moved[0]
        if (row === undefined) return
        if (outcome.settled) yield* sql`UPDATE contractors SET last_paid_at = ${now} WHERE id = ${row.contractorId}`
        const settled = outcome.settled ? 1 : 0
        const failed = outcome.settled ? 0 : 1
        yield* sql`
          UPDATE batches SET
            settled_count = settled_count + ${settled},
            failed_count = failed_count + ${failed},
            status = CASE WHEN settled_count + ${settled} + failed_count + ${failed} >= payout_count THEN 'completed' ELSE status END,
            completed_at = CASE WHEN settled_count + ${settled} + failed_count + ${failed} >= payout_count THEN ${now} ELSE completed_at END
          WHERE id = ${row.batchId}`
      })

    return { check, markSubmitted, markFinal } as const
  })
}) {}
