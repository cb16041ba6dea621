import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { BatchFromRow, BatchStatus, PayoutStatus } from "../Domain/Batch.ts"
import { BatchId, ContractorId, OrgId, PayoutId } from "../Domain/Ids.ts"
import { BatchMachine, PayoutMachine } from "../Domain/StateMachines.ts"
import { isUniqueViolation, undecodableDies } from "../Sql/Errors.ts"
import { BATCH, movable } from "./BatchRepo.ts"
import * as Spans from "../Observability/Spans.ts"

const READY_TO_DRAFT = movable(BatchMachine, ["ready"], "draft")
const PAYOUT_READY_TO_DRAFT = movable(PayoutMachine, ["ready"], "draft")
const TO_PAUSED = movable(BatchMachine, ["ready", "started"], "paused")
const FROM_PAUSED = movable(BatchMachine, ["paused"], "started")
movable(BatchMachine, FROM_PAUSED, "ready")
const TO_CANCELED = movable(BatchMachine, ["draft", "ready", "started", "paused"], "canceled")
const PAYOUT_TO_CANCELED = movable(PayoutMachine, ["draft", "ready", "failed"], "canceled")

const OfOrg = Schema.Struct({ orgId: OrgId, id: BatchId })
const Canceled = Schema.Struct({ id: PayoutId, contractorId: ContractorId, previous: PayoutStatus })


/**
 * The payroll controls' moves (issue 22 §2, §3): approve, reject, pause, resume, cancel a batch or one payout. Each
 * runs inside the caller's transaction (with its audit row and webhook event), each status UPDATE guarded by the
 * state machines' tables; none when the guard found nothing to move.
 */
export class ControlRepo extends Effect.Service<ControlRepo>()("Batches/ControlRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(BATCH)

    const findBatch = SqlSchema.findOne({
      Request: OfOrg,
      Result: BatchFromRow,
      execute: ({ orgId, id }) => sql`SELECT ${columns} FROM batches WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`
    })
    /** The batch, locked until the transaction ends. */
    const lock = (orgId: OrgId, id: BatchId) => findBatch({ orgId, id }).pipe(undecodableDies)

    /** Records one approval, with the sealed amounts' digest it was given for; false when this member already approved. */
    const approve = (id: BatchId, sub: string, now: Date, digest: string | null) =>
      sql`INSERT INTO batch_approvals ${sql.insert({ batchId: id, memberSub: sub, approvedAt: now, sealedAmountsDigest: digest })}`.pipe(
        Effect.as(true),
        Effect.catchIf((e) => isUniqueViolation(e), () => Effect.succeed(false)),
        Spans.withSpan("ControlRepo.approve")
      )

    const moveBatch = SqlSchema.findOne({
      Request: Schema.Struct({ id: BatchId, from: Schema.Array(BatchStatus), to: BatchStatus }),
      Result: BatchFromRow,
      execute: ({ id, from, to }) =>
        sql`
          UPDATE batches SET status = ${to},
            paused_from = CASE WHEN ${to} = 'paused' THEN status ELSE NULL END,
            readied_by = CASE WHEN ${to} = 'draft' THEN NULL ELSE readied_by END
          WHERE id = ${id} AND status IN ${sql.in(from)}
          RETURNING ${columns}`
    })

    /** ready → draft, its approvals cleared and its payouts back to draft. */
    const reject = (id: BatchId, now: Date) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM batch_approvals WHERE batch_id = ${id}`
        yield* sql`
          UPDATE payouts SET status = 'draft', updated_at = ${now}
          WHERE batch_id = ${id} AND status IN ${sql.in(PAYOUT_READY_TO_DRAFT)}`
        return yield* moveBatch({ id, from: READY_TO_DRAFT, to: "draft" })
      }).pipe(undecodableDies, Spans.withSpan("ControlRepo.reject"))

    const pause = (id: BatchId) => moveBatch({ id, from: TO_PAUSED, to: "paused" }).pipe(undecodableDies, Spans.withSpan("ControlRepo.pause"))

    const pausedFrom = SqlSchema.findOne({
      Request: BatchId,
      Result: Schema.Struct({ pausedFrom: Schema.Literal("ready", "started") }),
      execute: (id) => sql`SELECT paused_from FROM batches WHERE id = ${id} AND status = 'paused' AND paused_from IS NOT NULL`
    })
    /** paused → the state it was paused from. */
    const resume = (id: BatchId) =>
      Effect.gen(function*() {
        const from = yield* pausedFrom(id)
        if (Option.isNone(from)) return Option.none()
        return yield* moveBatch({ id, from: FROM_PAUSED, to: from.value.pausedFrom })
      }).pipe(undecodableDies, Spans.withSpan("ControlRepo.resume"))

    const cancelPayouts = SqlSchema.findAll({
      Request: Schema.Struct({ batchId: BatchId, only: Schema.NullOr(PayoutId), now: Schema.DateFromSelf }),
      Result: Canceled,
      execute: ({ batchId, only, now }) =>
        sql`
          WITH prev AS (
            SELECT id, status FROM payouts
            WHERE batch_id = ${batchId} AND status IN ${sql.in(PAYOUT_TO_CANCELED)} ${only === null ? sql`` : sql`AND id = ${only}`}
            FOR UPDATE
          )
          UPDATE payouts p SET status = 'canceled', updated_at = ${now}
          FROM prev WHERE p.id = prev.id
          RETURNING p.id, p.contractor_id, prev.status AS previous`
    })

    const settle = SqlSchema.findOne({
      Request: Schema.Struct({
        id: BatchId,
        canceled: Schema.Int,
        failed: Schema.Int,
        cancelBatch: Schema.Boolean,
        now: Schema.DateFromSelf
      }),
      Result: BatchFromRow,
      execute: ({ id, canceled, failed, cancelBatch, now }) => {
        // What is left to become final once the unsent payouts are canceled: those submitted (and, for one payout
        // canceled, the others not yet paid).
        const open = sql`EXISTS (SELECT 1 FROM payouts WHERE batch_id = ${id} AND status IN ('draft', 'ready', 'submitted'))`
        const closes = sql`(NOT ${open} AND (${cancelBatch} OR status IN ('started', 'paused')))`
        return sql`
          UPDATE batches SET
            canceled_count = canceled_count + ${canceled},
            failed_count = failed_count - ${failed},
            cancel_requested_at = CASE WHEN ${cancelBatch} THEN ${now}::timestamptz ELSE cancel_requested_at END,
            status = CASE
              WHEN NOT ${closes} THEN status
              WHEN ${cancelBatch} AND status IN ${sql.in(TO_CANCELED)} THEN 'canceled'
              WHEN status IN ('started', 'paused') THEN (CASE WHEN cancel_requested_at IS NULL THEN 'completed' ELSE 'canceled' END)
              ELSE status END,
            completed_at = CASE WHEN ${closes} THEN ${now}::timestamptz ELSE completed_at END
          WHERE id = ${id}
          RETURNING ${columns}`
      }
    })

    /**
     * Cancels the batch's unsent payouts (draft, ready, failed), or only `only`, and counts them; canceling the whole
     * batch (`only` null) marks it canceled at once when nothing of it is in flight, else when its last submitted
     * payout is final (`BatchRepo.countFinished`). Answers the canceled payouts and the batch.
     */
    const cancel = (id: BatchId, only: PayoutId | null, now: Date) =>
      Effect.gen(function*() {
        const canceled = yield* cancelPayouts({ batchId: id, only, now })
        const failed = canceled.filter((p) => p.previous === "failed").length
        const batch = yield* settle({ id, canceled: canceled.length, failed, cancelBatch: only === null, now })
        return { canceled, batch }
      }).pipe(undecodableDies, Spans.withSpan("ControlRepo.cancel"))

    const statusOfPayout = SqlSchema.findOne({
      Request: PayoutId,
      Result: Schema.Struct({ status: BatchStatus }),
      execute: (id) => sql`SELECT b.status FROM payouts p JOIN batches b ON b.id = p.batch_id WHERE p.id = ${id}`
    })
    /** Whether the payout's batch is paused now: a batch run holds its items back. */
    const pausedPayout = (id: PayoutId) =>
      statusOfPayout(id).pipe(Effect.map((row) => Option.isSome(row) && row.value.status === "paused"), undecodableDies)

    const payoutOf = SqlSchema.findOne({
      Request: Schema.Struct({ batchId: BatchId, id: PayoutId }),
      Result: Schema.Struct({ status: PayoutStatus }),
      execute: ({ batchId, id }) => sql`SELECT status FROM payouts WHERE batch_id = ${batchId} AND id = ${id}`
    })
    /** A payout's status in the batch; none when the batch has no such payout. */
    const payoutStatus = (batchId: BatchId, id: PayoutId) =>
      payoutOf({ batchId, id }).pipe(Effect.map(Option.map((row) => row.status)), undecodableDies)

    return { lock, approve, reject, pause, resume, cancel, pausedPayout, payoutStatus } as const
  })
}) {}
