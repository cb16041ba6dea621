import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { OrgId, PayoutId } from "../Domain/Ids.ts"
import { deleteSome } from "../Sql/DeleteSome.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import { Outbox } from "../Sql/Outbox.ts"
import * as Spans from "../Observability/Spans.ts"

/** One transaction of a batch run, as stored in the job's `items` (jsonb). */
const JobItemRow = Schema.Struct({
  signedXDR: Schema.String,
  payoutId: Schema.optional(PayoutId)
})
export type JobItemRow = typeof JobItemRow.Type

const JobRow = Schema.Struct({
  id: Schema.String,
  orgId: OrgId,
  sessionSub: Schema.String,
  items: Schema.Array(JobItemRow),
  state: Schema.Literal("queued", "running", "done"),
  error: Schema.NullOr(Schema.String),
  createdAt: Schema.ValidDateFromSelf
})
export type JobRow = typeof JobRow.Type

/** What a poll shows of a job: not its items, which are the bulk of the row (~43 K characters per transfer). */
const JobStatusRow = Schema.Struct({
  id: Schema.String,
  error: Schema.NullOr(Schema.String),
  createdAt: Schema.ValidDateFromSelf
})
export type JobStatusRow = typeof JobStatusRow.Type

const ResultRow = Schema.Struct({
  i: Schema.Int,
  hash: Schema.String,
  status: Schema.String,
  error: Schema.NullOr(Schema.String)
})
export type ResultRow = typeof ResultRow.Type

const Waiting = Schema.Struct({ n: Schema.Int })

const Finished = Schema.Struct({ orgId: OrgId, items: Schema.Int })
const Tally = Schema.Struct({ status: Schema.String, n: Schema.Int })

const COLUMNS = "id, org_id, session_sub, items, state, error, created_at"

/**
 * Batch-run jobs and their per-item results; a job is worked by whichever instance holds its lease, recorded as its
 * `lease_owner`: only that instance renews or releases it.
 */
export class JobRepo extends Effect.Service<JobRepo>()("BatchRuns/JobRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const columns = sql.literal(COLUMNS)
    /** This instance, as the owner of the leases it takes. */
    const instance = randomUUID()

    const create = (row: { id: string; orgId: OrgId; sessionSub: string; items: ReadonlyArray<JobItemRow> }, now: Date) =>
      sql`INSERT INTO batch_jobs ${
        sql.insert({ ...row, items: JSON.stringify(row.items), state: "queued", leaseUntil: now, createdAt: now })
      }`.pipe(Effect.asVoid, orUnavailable, Spans.withSpan("JobRepo.create"))

    const findStatus = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, id: Schema.String }),
      Result: JobStatusRow,
      execute: ({ orgId, id }) => sql`SELECT id, error, created_at FROM batch_jobs WHERE org_id = ${orgId} AND id = ${id}`
    })
    const find = (orgId: OrgId, id: string) => findStatus({ orgId, id }).pipe(orUnavailable, Spans.withSpan("JobRepo.find"))

    const resultsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: ResultRow,
      execute: (id) => sql`SELECT i, hash, status, error FROM batch_job_results WHERE job_id = ${id} ORDER BY i`
    })
    const results = (id: string) => resultsOf(id).pipe(orUnavailable, Spans.withSpan("JobRepo.results"))

    const claimOldest = SqlSchema.findOne({
      Request: Schema.Struct({ now: Schema.DateFromSelf, until: Schema.DateFromSelf, owner: Schema.String }),
      Result: JobRow,
      execute: ({ now, until, owner }) =>
        sql`
            UPDATE batch_jobs SET state = 'running', lease_until = ${until}, lease_owner = ${owner}, attempts = attempts + 1
            WHERE id = (
              SELECT id FROM batch_jobs WHERE state <> 'done' AND lease_until < ${now}
              ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING ${columns}`
    })
    /** Claims the oldest job nobody holds for `owner`, with SKIP LOCKED so instances never wait on each other. */
    const claim = (now: Date, until: Date, owner: string = instance) =>
      claimOldest({ now, until, owner }).pipe(orUnavailable, Spans.withSpan("JobRepo.claim"))

    /** Renews the lease `owner` holds on a running job; one held by another is left alone. */
    const lease = (id: string, until: Date, owner: string = instance) =>
      sql`UPDATE batch_jobs SET lease_until = ${until} WHERE id = ${id} AND state = 'running' AND lease_owner = ${owner}`.pipe(
        Effect.asVoid,
        orUnavailable
      )

    const record = (id: string, result: ResultRow) =>
      sql`INSERT INTO batch_job_results ${sql.insert({ jobId: id, ...result })} ON CONFLICT (job_id, i) DO NOTHING`.pipe(
        Effect.asVoid,
        orUnavailable
      )

    const markDone = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, now: Schema.DateFromSelf, error: Schema.NullOr(Schema.String) }),
      Result: Finished,
      execute: ({ id, now, error }) =>
        sql`
          UPDATE batch_jobs SET state = 'done', finished_at = ${now}, error = ${error}
          WHERE id = ${id} AND state <> 'done'
          RETURNING org_id, jsonb_array_length(items) AS items`
    })
    const tally = SqlSchema.findAll({
      Request: Schema.String,
      Result: Tally,
      execute: (id) => sql`SELECT status, count(*)::int AS n FROM batch_job_results WHERE job_id = ${id} GROUP BY status`
    })
    /** The job is done, and `batch_run.completed` is written with it (once: a job already done is left alone). */
    const finish = (id: string, now: Date, error: string | null) =>
      Effect.gen(function*() {
        const done = yield* markDone({ id, now, error })
        if (Option.isNone(done)) return
        const results = Object.fromEntries((yield* tally(id)).map((row) => [row.status, row.n]))
        yield* outbox.emit({
          orgId: done.value.orgId,
          type: "batch_run.completed",
          data: { jobId: id, items: done.value.items, results, error, completedAt: now }
        })
      }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("JobRepo.finish"))

    /** Gives a job `owner` stops working back to the queue at once, instead of when its lease lapses. */
    const release = (id: string, now: Date, owner: string = instance) =>
      sql`UPDATE batch_jobs SET lease_until = ${now} WHERE id = ${id} AND state = 'running' AND lease_owner = ${owner}`.pipe(
        Effect.asVoid
      )

    const countWaiting = SqlSchema.single({
      Request: Schema.DateFromSelf,
      Result: Waiting,
      execute: (now) => sql`SELECT count(*)::int AS n FROM batch_jobs WHERE state <> 'done' AND lease_until < ${now}`
    })
    /** Jobs waiting to be worked: queued, or running under a lease that lapsed. */
    const waiting = (now: Date) =>
      countWaiting(now).pipe(
        Effect.map((row) => row.n),
        Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die })
      )

    /** Deletes up to `limit` jobs finished before `before`, their results with them. */
    const pruneFinished = (before: Date, limit: number) =>
      deleteSome(sql, { table: "batch_jobs", key: "id", where: sql`state = 'done' AND finished_at < ${before}`, limit }).pipe(Spans.withSpan("JobRepo.pruneFinished"))

    return { create, find, results, claim, lease, release, record, finish, waiting, pruneFinished } as const
  }),
  dependencies: [Outbox.Default]
}) {}
