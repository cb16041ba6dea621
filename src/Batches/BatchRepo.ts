import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import {
  batchFromRow,
  BatchFromRow,
  BatchStatus,
  ContractorPayoutFromRow,
  payoutFromRow,
  PayoutFromRow,
  PayoutStatus
} from "../Domain/Batch.ts"
import { BatchMachine, PayoutMachine, type StateMachine, sourcesOf } from "../Domain/StateMachines.ts"
import { BatchId, ContractorId, OrgId, PayoutId } from "../Domain/Ids.ts"
import { keysetPages, type KeysetQuery } from "../Sql/KeysetPage.ts"
import { orUnavailable, unavailableOrDie, undecodableDies } from "../Sql/Errors.ts"
import { Outbox } from "../Sql/Outbox.ts"
import * as Spans from "../Observability/Spans.ts"

export interface ListQuery extends KeysetQuery {
  readonly status: Option.Option<BatchStatus>
}

/**
 * A batch's columns, with its approvals (oldest first), its sealed amounts' digest and its organization's approval
 * rule: every answer carries them. Usable in SELECT and in RETURNING (a subquery there sees the approvals as they were before the statement).
 */
export const BATCH = "id, name, status, payout_count, settled_count, failed_count, canceled_count, created_by, readied_by, " +
  "cancel_requested_at, created_at, started_at, completed_at, " +
  "(SELECT coalesce(json_agg(json_build_object('by', a.member_sub, 'at', a.approved_at, 'digest', a.sealed_amounts_digest) " +
  "ORDER BY a.approved_at, a.member_sub), '[]'::json) FROM batch_approvals a WHERE a.batch_id = batches.id) AS approvals, " +
  "(SELECT s.digest FROM batch_sealed_amounts s WHERE s.batch_id = batches.id) AS sealed_amounts_digest, " +
  "coalesce((SELECT s.approvals_required FROM org_settings s WHERE s.org_id = batches.org_id), 0) AS approvals_required"

/**
 * The states a status UPDATE may move a row from to `to`: `from`, each checked against the machine's table once, as
 * the module loads, so that no statement can name a move the table does not allow.
 */
export const movable = <S extends string>(machine: StateMachine<S>, from: ReadonlyArray<S>, to: S): ReadonlyArray<S> => {
  const allowed = sourcesOf(machine, to)
  const refused = from.filter((s) => !allowed.includes(s))
  if (refused.length > 0) throw new Error(`the state machine allows no move from ${refused.join(", ")} to ${to}`)
  return from
}

const DRAFT_TO_READY = movable(BatchMachine, ["draft"], "ready")
const PAYOUT_DRAFT_TO_READY = movable(PayoutMachine, ["draft"], "ready")
const PAYOUT_TO_SUBMITTED = movable(PayoutMachine, ["ready", "failed"], "submitted")
const PAYOUT_TO_FINAL = movable(PayoutMachine, ["submitted"], "settled")
const TO_STARTED = movable(BatchMachine, ["ready"], "started")
const RETRY_TO_STARTED = movable(BatchMachine, ["completed"], "started")
const TO_COMPLETED = movable(BatchMachine, ["started", "paused"], "completed")
movable(BatchMachine, TO_COMPLETED, "canceled")
movable(PayoutMachine, PAYOUT_TO_FINAL, "failed")
const PAYOUT = "id, batch_id, contractor_id, status, hash, error, created_at, updated_at"

const Locked = Schema.Struct({ status: BatchStatus })
const Member = Schema.Struct({ contractorId: ContractorId })
const Deleted = Schema.Struct({ id: Schema.String })

/** One batch of an organization, as queries name it. */
const OfOrg = Schema.Struct({ orgId: OrgId, id: BatchId })

const NewPayout = Schema.Struct({
  id: Schema.String,
  batchId: BatchId,
  orgId: OrgId,
  contractorId: ContractorId,
  status: Schema.Literal("draft")
})

/** What paying a payout depends on: its state, its batch's (approvals, cancel), and the contractor's address. */
const Payable = Schema.Struct({
  status: PayoutStatus,
  batchStatus: BatchStatus,
  canceling: Schema.Boolean,
  approvals: Schema.Int,
  approvalsRequired: Schema.Int,
  address: Schema.NullOr(Schema.String)
})
export type Payable = typeof Payable.Type

const Submitted = Schema.Struct({ batchId: BatchId, previous: PayoutStatus })
const Finished = Schema.Struct({
  batchId: BatchId,
  contractorId: ContractorId,
  orgId: OrgId,
  hash: Schema.NullOr(Schema.String)
})

/** A batch as its count of finished payouts leaves it: what `batch.completed` (or `batch.canceled`) reports. */
const Counted = Schema.Struct({
  orgId: OrgId,
  previous: BatchStatus,
  canceledCount: Schema.Int,
  name: Schema.String,
  status: BatchStatus,
  payoutCount: Schema.Int,
  settledCount: Schema.Int,
  failedCount: Schema.Int,
  startedAt: Schema.NullOr(Schema.DateFromSelf),
  completedAt: Schema.NullOr(Schema.DateFromSelf)
})


/**
 * Batches and their payouts; state moves are single guarded UPDATEs so two concurrent moves cannot both win. A payout
 * that becomes final and a batch that completes write their webhook event to the outbox in the same transaction.
 */
export class BatchRepo extends Effect.Service<BatchRepo>()("Batches/BatchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const batchColumns = sql.literal(BATCH)
    const payoutColumns = sql.literal(PAYOUT)

    /** Runs `effect` (calls of this repo and others) in one transaction. */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))

    const insertBatch = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, orgId: OrgId, name: Schema.String, createdBy: Schema.String }),
      Result: BatchFromRow,
      execute: (row) => sql`INSERT INTO batches ${sql.insert({ ...row, status: "draft" })} RETURNING ${batchColumns}`
    })
    /** A new draft batch (inside the caller's transaction, with its audit row). */
    const create = (orgId: OrgId, name: string, createdBy: string) =>
      insertBatch({ id: randomUUID(), orgId, name, createdBy }).pipe(
        Effect.catchTag("NoSuchElementException", Effect.die),
        undecodableDies,
        Spans.withSpan("BatchRepo.create")
      )

    const findBatch = SqlSchema.findOne({
      Request: OfOrg,
      Result: BatchFromRow,
      execute: ({ orgId, id }) => sql`SELECT ${batchColumns} FROM batches WHERE org_id = ${orgId} AND id = ${id}`
    })
    const find = (orgId: OrgId, id: BatchId) => findBatch({ orgId, id }).pipe(orUnavailable, Spans.withSpan("BatchRepo.find"))

    const page = keysetPages(sql, { table: "batches", columns: BATCH, fromRow: batchFromRow })
    const list = (orgId: OrgId, query: ListQuery) =>
      page([
        sql`org_id = ${orgId}`,
        ...Option.toArray(Option.map(query.status, (status) => sql`status = ${status}`))
      ], query).pipe(Spans.withSpan("BatchRepo.list"))

    const markReady = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, id: BatchId, by: Schema.String }),
      Result: BatchFromRow,
      execute: ({ orgId, id, by }) =>
        sql`
              UPDATE batches SET status = 'ready', readied_by = ${by}
              WHERE org_id = ${orgId} AND id = ${id} AND status IN ${sql.in(DRAFT_TO_READY)} AND payout_count > 0
              RETURNING ${batchColumns}`
    })
    /** draft → ready, only with at least one payout; its payouts become ready with it (in the caller's transaction). */
    const ready = (orgId: OrgId, id: BatchId, by: string, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* markReady({ orgId, id, by })
        if (Option.isSome(moved)) {
          yield* sql`
            UPDATE payouts SET status = 'ready', updated_at = ${now}
            WHERE batch_id = ${id} AND status IN ${sql.in(PAYOUT_DRAFT_TO_READY)}`
        }
        return moved
      }).pipe(undecodableDies, Spans.withSpan("BatchRepo.ready"))

    const deleteDraft = SqlSchema.findAll({
      Request: OfOrg,
      Result: Deleted,
      execute: ({ orgId, id }) => sql`DELETE FROM batches WHERE org_id = ${orgId} AND id = ${id} AND status = 'draft' RETURNING id`
    })
    const remove = (orgId: OrgId, id: BatchId) =>
      deleteDraft({ orgId, id }).pipe(Effect.map((rows) => rows.length === 1), orUnavailable, Spans.withSpan("BatchRepo.remove"))

    const lockBatch = SqlSchema.findOne({
      Request: OfOrg,
      Result: Locked,
      execute: ({ orgId, id }) => sql`SELECT status FROM batches WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`
    })
    /** Locks the batch for a change of its payouts (inside a transaction); none when it does not exist. */
    const lock = (orgId: OrgId, id: BatchId) => lockBatch({ orgId, id }).pipe(undecodableDies)

    const insertPayouts = SqlSchema.findAll({
      Request: Schema.Array(NewPayout),
      Result: PayoutFromRow,
      execute: (rows) => sql`INSERT INTO payouts ${sql.insert(rows)} RETURNING ${payoutColumns}`
    })
    const addPayouts = (orgId: OrgId, batchId: BatchId, contractorIds: ReadonlyArray<ContractorId>) =>
      Effect.gen(function*() {
        const inserted = yield* insertPayouts(
          contractorIds.map((contractorId) => ({ id: randomUUID(), batchId, orgId, contractorId, status: "draft" as const }))
        )
        yield* sql`UPDATE batches SET payout_count = payout_count + ${inserted.length} WHERE id = ${batchId}`
        return inserted
      }).pipe(undecodableDies)

    const deletePayout = SqlSchema.findAll({
      Request: Schema.Struct({ batchId: BatchId, payoutId: PayoutId }),
      Result: Deleted,
      execute: ({ batchId, payoutId }) => sql`DELETE FROM payouts WHERE id = ${payoutId} AND batch_id = ${batchId} RETURNING id`
    })
    const removePayout = (batchId: BatchId, payoutId: PayoutId) =>
      Effect.gen(function*() {
        const gone = yield* deletePayout({ batchId, payoutId })
        if (gone.length === 1) yield* sql`UPDATE batches SET payout_count = payout_count - 1 WHERE id = ${batchId}`
        return gone.length === 1
      }).pipe(undecodableDies)

    const payoutPage = keysetPages(sql, { table: "payouts", columns: PAYOUT, fromRow: payoutFromRow })
    /** One page of a batch's payouts, newest first (`limit + 1` rows, see keysetPages). */
    const payouts = (batchId: BatchId, query: KeysetQuery) =>
      payoutPage([sql`batch_id = ${batchId}`], query).pipe(Spans.withSpan("BatchRepo.payouts"))

    const members = SqlSchema.findAll({
      Request: Schema.Struct({ batchId: BatchId, ids: Schema.Array(ContractorId) }),
      Result: Member,
      execute: ({ batchId, ids }) => sql`SELECT contractor_id FROM payouts WHERE batch_id = ${batchId} AND contractor_id = ANY(${ids})`
    })
    /** Which of these contractors already have a payout in the batch. */
    const inBatch = (batchId: BatchId, ids: ReadonlyArray<ContractorId>) => members({ batchId, ids }).pipe(undecodableDies)

    const contractorPayouts = SqlSchema.findAll({
      Request: Schema.Struct({
        sub: Schema.String,
        limit: Schema.Int,
        after: Schema.NullOr(Schema.Struct({ createdAt: Schema.DateFromSelf, id: Schema.String }))
      }),
      Result: ContractorPayoutFromRow,
      execute: ({ after, limit, sub }) =>
        sql`
            SELECT p.id, o.name AS company, b.name AS batch_name, p.status, p.hash, p.created_at, p.updated_at
            FROM payouts p
              JOIN contractors c ON c.id = p.contractor_id
              JOIN batches b ON b.id = p.batch_id
              JOIN orgs o ON o.id = p.org_id
            WHERE ${
          sql.and([
            sql`(c.user_sub = ${sub} OR c.address = ${sub})`,
            sql`b.status <> 'draft'`,
            ...(after === null ? [] : [sql`(p.created_at, p.id) < (${after.createdAt}, ${after.id})`])
          ])
        }
            ORDER BY p.created_at DESC, p.id DESC
            LIMIT ${limit + 1}`
    })
    /**
     * One page of a signed-in contractor's own payouts across every organization that pays them, newest first
     * (`limit + 1` rows, see keysetPages).
     */
    const payoutsOf = (sub: string, query: KeysetQuery) =>
      contractorPayouts({ sub, limit: query.limit, after: Option.getOrNull(query.after) }).pipe(
        orUnavailable,
        Spans.withSpan("BatchRepo.payoutsOf")
      )

    const findPayable = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, payoutId: Schema.String }),
      Result: Payable,
      execute: ({ orgId, payoutId }) =>
        sql`
            SELECT p.status, b.status AS batch_status, b.cancel_requested_at IS NOT NULL AS canceling, c.address,
              (SELECT count(*)::int FROM batch_approvals a WHERE a.batch_id = b.id) AS approvals,
              coalesce((SELECT s.approvals_required FROM org_settings s WHERE s.org_id = b.org_id), 0) AS approvals_required
            FROM payouts p JOIN batches b ON b.id = p.batch_id JOIN contractors c ON c.id = p.contractor_id
            WHERE p.id = ${payoutId} AND p.org_id = ${orgId}`
    })
    const payable = (orgId: OrgId, payoutId: string) =>
      findPayable({ orgId, payoutId }).pipe(orUnavailable, Spans.withSpan("BatchRepo.payable"))

    const markSubmitted = SqlSchema.findOne({
      Request: Schema.Struct({ payoutId: Schema.String, hash: Schema.String, now: Schema.DateFromSelf }),
      Result: Submitted,
      execute: ({ payoutId, hash, now }) =>
        sql`
            WITH prev AS (SELECT id, status FROM payouts WHERE id = ${payoutId} FOR UPDATE)
            UPDATE payouts p SET status = 'submitted', hash = ${hash}, error = NULL, updated_at = ${now}
            FROM prev WHERE p.id = prev.id AND prev.status IN ${sql.in(PAYOUT_TO_SUBMITTED)}
            RETURNING p.batch_id, prev.status AS previous`
    })
    /** ready or failed → submitted; none when the payout is in neither. Returns its batch and its previous state. */
    const submitPayout = (payoutId: string, hash: string, now: Date) => markSubmitted({ payoutId, hash, now }).pipe(undecodableDies)

    const markStarted = SqlSchema.findOne({
      Request: Schema.Struct({ batchId: BatchId, retry: Schema.Boolean, now: Schema.DateFromSelf }),
      Result: Schema.Struct({ orgId: OrgId, previous: BatchStatus }),
      execute: ({ batchId, retry, now }) =>
        sql`
            WITH prev AS (SELECT id, status FROM batches WHERE id = ${batchId} FOR UPDATE)
            UPDATE batches b SET
              status = 'started',
              started_at = coalesce(b.started_at, ${now}),
              completed_at = NULL,
              failed_count = b.failed_count - ${retry ? 1 : 0}
            FROM prev
            WHERE b.id = prev.id AND b.cancel_requested_at IS NULL
              AND (prev.status = 'started' OR prev.status IN ${sql.in(TO_STARTED)} OR (prev.status IN ${sql.in(RETRY_TO_STARTED)} AND ${retry}))
            RETURNING b.org_id, prev.status AS previous`
    })
    /**
     * The batch (re-)starts with a submitted payout: from ready or started, or from completed when the payout
     * failed before (a retry), which then no longer counts as failed. None when the batch is not open (paused,
     * canceled, rejected back to draft); else the state it left.
     */
    const startBatch = (batchId: BatchId, retry: boolean, now: Date) => markStarted({ batchId, retry, now }).pipe(undecodableDies)

    const markFinished = SqlSchema.findOne({
      Request: Schema.Struct({
        payoutId: Schema.String,
        settled: Schema.Boolean,
        error: Schema.NullOr(Schema.String),
        now: Schema.DateFromSelf
      }),
      Result: Finished,
      execute: ({ payoutId, settled, error, now }) =>
        sql`
            UPDATE payouts SET status = ${settled ? "settled" : "failed"}, error = ${error}, updated_at = ${now}
            WHERE id = ${payoutId} AND status IN ${sql.in(PAYOUT_TO_FINAL)}
            RETURNING batch_id, contractor_id, org_id, hash`
    })
    /** submitted → settled or failed, with its `payout.settled` / `payout.failed` event; none when it was not submitted. */
    const finishPayout = (payoutId: string, outcome: { readonly settled: boolean; readonly error?: string }, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* markFinished({ payoutId, settled: outcome.settled, error: outcome.error ?? null, now })
        if (Option.isNone(moved)) return Option.none()
        const { batchId, contractorId, orgId, hash } = moved.value
        yield* outbox.emit({
          orgId,
          type: outcome.settled ? "payout.settled" : "payout.failed",
          data: {
            payoutId,
            batchId,
            contractorId,
            hash,
            ...(outcome.settled ? { settledAt: now } : { error: outcome.error ?? null, failedAt: now })
          }
        })
        return Option.some({ batchId, contractorId, orgId })
      }).pipe(undecodableDies)

    const countOne = SqlSchema.single({
      Request: Schema.Struct({ batchId: BatchId, settled: Schema.Boolean, now: Schema.DateFromSelf }),
      Result: Counted,
      execute: ({ batchId, settled, now }) => {
        const s = settled ? 1 : 0
        const f = settled ? 0 : 1
        const done = sql`b.settled_count + ${s} + b.failed_count + ${f} + b.canceled_count >= b.payout_count
          AND b.status IN ${sql.in(TO_COMPLETED)}`
        return sql`
          WITH prev AS (SELECT id, status FROM batches WHERE id = ${batchId} FOR UPDATE)
          UPDATE batches b SET
            settled_count = b.settled_count + ${s},
            failed_count = b.failed_count + ${f},
            status = CASE WHEN ${done} THEN (CASE WHEN b.cancel_requested_at IS NULL THEN 'completed' ELSE 'canceled' END) ELSE b.status END,
            completed_at = CASE WHEN ${done} THEN ${now} ELSE b.completed_at END
          FROM prev WHERE b.id = prev.id
          RETURNING b.org_id, prev.status AS previous, b.name, b.status, b.payout_count, b.settled_count, b.failed_count,
            b.canceled_count, b.started_at, b.completed_at`
      }
    })
    /**
     * Counts a finished payout in its batch, which completes with its last payout (while a payout is submitted its
     * batch is started, so `completed` here is the move) and then writes `batch.completed`.
     */
    const countFinished = (batchId: BatchId, settled: boolean, now: Date) =>
      Effect.gen(function*() {
        const batch = yield* countOne({ batchId, settled, now }).pipe(
          Effect.catchTag("NoSuchElementException", () => Effect.succeed(undefined))
        )
        if (batch === undefined || batch.previous === batch.status) return Option.none()
        yield* outbox.emit({
          orgId: batch.orgId,
          type: batch.status === "canceled" ? "batch.canceled" : "batch.completed",
          data: {
            batchId,
            name: batch.name,
            payoutCount: batch.payoutCount,
            settledCount: batch.settledCount,
            failedCount: batch.failedCount,
            canceledCount: batch.canceledCount,
            startedAt: batch.startedAt,
            completedAt: batch.completedAt
          }
        })
        return Option.some({ orgId: batch.orgId, from: batch.previous, to: batch.status })
      }).pipe(undecodableDies)

    return {
      transaction,
      create,
      find,
      list,
      ready,
      remove,
      lock,
      addPayouts,
      removePayout,
      payouts,
      inBatch,
      payoutsOf,
      payable,
      submitPayout,
      startBatch,
      finishPayout,
      countFinished
    } as const
  }),
  dependencies: [Outbox.Default]
}) {}
