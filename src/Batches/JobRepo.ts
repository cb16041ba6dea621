import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { OrgId } from "../Domain/Ids.ts"

export interface JobItemRow {
  readonly signedXDR: string
  readonly payoutId?: string | undefined
}

export interface JobRow {
  readonly id: string
  readonly orgId: OrgId
  readonly sessionSub: string
  readonly items: ReadonlyArray<JobItemRow>
  readonly state: "queued" | "running" | "done"
  readonly error: string | null
  readonly createdAt: Date
}

export interface ResultRow {
  readonly i: number
  readonly hash: string
  readonly status: string
  readonly error: string | null
}

const COLUMNS = "id, org_id, session_sub, items, state, error, created_at"

/** Batch-run jobs and their per-item results; a job is worked by whichever instance holds its lease. */
export class JobRepo extends Effect.Service<JobRepo>()("Batches/JobRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const create = (row: { id: string; orgId: OrgId; sessionSub: string; items: ReadonlyArray<JobItemRow> }, now: Date) =>
      sql`INSERT INTO batch_jobs ${
        sql.insert({ ...row, items: JSON.stringify(row.items), state: "queued", leaseUntil: now, createdAt: now })
      }`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("JobRepo.create"))

    const find = (orgId: OrgId, id: string) =>
      sql<JobRow>`SELECT ${columns} FROM batch_jobs WHERE org_id = ${orgId} AND id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const results = (id: string) =>
      sql<ResultRow>`SELECT i, hash, status, error FROM batch_job_results WHERE job_id = ${id} ORDER BY i`.pipe(Effect.orDie)

    /** Claims the oldest job nobody holds, with SKIP LOCKED so instances never wait on each other. */
    const claim = (now: Date, until: Date) =>
      sql<JobRow>`
        UPDATE batch_jobs SET state = 'running', lease_until = ${until}, attempts = attempts + 1
        WHERE id = (
          SELECT id FROM batch_jobs WHERE state <> 'done' AND lease_until < ${now}
          ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${columns}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)

    const lease = (id: string, until: Date) =>
      sql`UPDATE batch_jobs SET lease_until = ${until} WHERE id = ${id} AND state = 'running'`.pipe(Effect.asVoid, Effect.orDie)

    const record = (id: string, result: ResultRow) =>
      sql`INSERT INTO batch_job_results ${sql.insert({ jobId: id, ...result })} ON CONFLICT (job_id, i) DO NOTHING`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const finish = (id: string, now: Date, error: string | null) =>
      sql`UPDATE batch_jobs SET state = 'done', finished_at = ${now}, error = ${error} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Gives a job this instance stops working back to the queue at once, instead of when its lease lapses. */
    const release = (id: string, now: Date) =>
      sql`UPDATE batch_jobs SET lease_until = ${now} WHERE id = ${id} AND state = 'running'`.pipe(Effect.asVoid)

    /** Jobs waiting to be worked: queued, or running under a lease that lapsed. */
    const waiting = (now: Date) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM batch_jobs WHERE state <> 'done' AND lease_until < ${now}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0)
      )

    /** Deletes up to `limit` jobs finished before `before`, their results with them. */
    const pruneFinished = (before: Date, limit: number) =>
      sql<{ n: number }>`
        WITH gone AS (
          DELETE FROM batch_jobs WHERE id IN (
            SELECT id FROM batch_jobs WHERE state = 'done' AND finished_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.withSpan("JobRepo.pruneFinished")
      )

    return { create, find, results, claim, lease, release, record, finish, waiting, pruneFinished } as const
  })
}) {}
