import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { BatchStatus, PayoutStatus } from "../Domain/Batch.ts"
import type { BatchId, ContractorId, OrgId, PayoutId } from "../Domain/Ids.ts"

export interface BatchRow {
  readonly id: BatchId
  readonly orgId: OrgId
  readonly name: string
  readonly status: BatchStatus
  readonly payoutCount: number
  readonly settledCount: number
  readonly failedCount: number
  readonly createdAt: Date
  readonly startedAt: Date | null
  readonly completedAt: Date | null
}

export interface PayoutRow {
  readonly id: PayoutId
  readonly batchId: BatchId
  readonly orgId: OrgId
  readonly contractorId: ContractorId
  readonly status: PayoutStatus
  readonly hash: string | null
  readonly error: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const BATCH = "id, org_id, name, status, payout_count, settled_count, failed_count, created_at, started_at, completed_at"
const PAYOUT = "id, batch_id, org_id, contractor_id, status, hash, error, created_at, updated_at"

/** Batches and their payouts; state moves are single guarded UPDATEs so two concurrent moves cannot both win. */
export class BatchRepo extends Effect.Service<BatchRepo>()("Batches/BatchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const batchColumns = sql.literal(BATCH)
    const payoutColumns = sql.literal(PAYOUT)
    const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])

    const create = (orgId: OrgId, name: string) =>
      sql<BatchRow>`INSERT INTO batches ${sql.insert({ id: randomUUID(), orgId, name, status: "draft" })} RETURNING ${batchColumns}`
        .pipe(Effect.map((rows) => rows[0]!), Effect.orDie, Effect.withSpan("BatchRepo.create"))

    const find = (orgId: OrgId, id: BatchId) =>
      sql<BatchRow>`SELECT ${batchColumns} FROM batches WHERE org_id = ${orgId} AND id = ${id}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("BatchRepo.find")
      )

    const list = (
      orgId: OrgId,
      query: { limit: number; after: Option.Option<{ createdAt: Date; id: string }>; status: Option.Option<BatchStatus> }
    ) =>
      sql<BatchRow>`
        SELECT ${batchColumns} FROM batches
        WHERE ${
        sql.and([
          sql`org_id = ${orgId}`,
          ...Option.toArray(Option.map(query.status, (status) => sql`status = ${status}`)),
          ...Option.toArray(Option.map(query.after, (a) => sql`(created_at, id) < (${a.createdAt}, ${a.id})`))
        ])
      }
        ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("BatchRepo.list"))

    /** draft → ready, only with at least one payout; its payouts become ready with it. */
    const ready = (orgId: OrgId, id: BatchId) =>
      Effect.gen(function*() {
        const moved = yield* sql<BatchRow>`
          UPDATE batches SET status = 'ready'
          WHERE org_id = ${orgId} AND id = ${id} AND status = 'draft' AND payout_count > 0
          RETURNING ${batchColumns}`
        if (moved.length === 1) yield* sql`UPDATE payouts SET status = 'ready', updated_at = now() WHERE batch_id = ${id}`
        return first(moved)
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("BatchRepo.ready"))

    const remove = (orgId: OrgId, id: BatchId) =>
      sql`DELETE FROM batches WHERE org_id = ${orgId} AND id = ${id} AND status = 'draft' RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie,
        Effect.withSpan("BatchRepo.remove")
      )

    /** Locks a draft batch for a change of its payouts; none when it is not (or no longer) a draft. */
    const lockDraft = (orgId: OrgId, id: BatchId) =>
      sql<{ status: BatchStatus }>`SELECT status FROM batches WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`.pipe(
        Effect.map(first)
      )

    const addPayouts = (orgId: OrgId, batchId: BatchId, contractorIds: ReadonlyArray<ContractorId>) =>
      Effect.gen(function*() {
        const rows = contractorIds.map((contractorId) => ({ id: randomUUID(), batchId, orgId, contractorId, status: "draft" }))
        const inserted = yield* sql<PayoutRow>`INSERT INTO payouts ${sql.insert(rows)} RETURNING ${payoutColumns}`
        yield* sql`UPDATE batches SET payout_count = payout_count + ${inserted.length} WHERE id = ${batchId}`
        return inserted
      })

    const removePayout = (batchId: BatchId, payoutId: PayoutId) =>
      Effect.gen(function*() {
        const gone = yield* sql`DELETE FROM payouts WHERE id = ${payoutId} AND batch_id = ${batchId} RETURNING id`
        if (gone.length === 1) yield* sql`UPDATE batches SET payout_count = payout_count - 1 WHERE id = ${batchId}`
        return gone.length === 1
      })

    const payouts = (batchId: BatchId) =>
      sql<PayoutRow>`SELECT ${payoutColumns} FROM payouts WHERE batch_id = ${batchId} ORDER BY created_at, id`.pipe(
        Effect.orDie,
        Effect.withSpan("BatchRepo.payouts")
      )

    const contractorsOf = (orgId: OrgId, ids: ReadonlyArray<ContractorId>) =>
      sql<{ id: ContractorId; status: string }>`SELECT id, status FROM contractors WHERE org_id = ${orgId} AND id = ANY(${ids})`

    const inBatch = (batchId: BatchId, ids: ReadonlyArray<ContractorId>) =>
      sql<{ contractorId: ContractorId }>`SELECT contractor_id FROM payouts WHERE batch_id = ${batchId} AND contractor_id = ANY(${ids})`

    return {
      sql,
      create,
      find,
      list,
      ready,
      remove,
      lockDraft,
      addPayouts,
      removePayout,
      payouts,
      contractorsOf,
      inBatch
    } as const
  })
}) {}
