import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { orUnavailable } from "../Sql/Errors.ts"
import { findAllTrusted } from "../Sql/TrustedRows.ts"
import { attribute } from "./Attribution.ts"
import * as Spans from "../Observability/Spans.ts"

/** The job migration 0020 records: the checkpoint flags of the events archived before `revoke_spender` was judged by shape. */
export const ATTRIBUTION_BACKFILL = "attribution-2"

/** The events whose attribution rule changed for that job: the only ones it decodes and rewrites. */
export const ATTRIBUTION_BACKFILL_TYPES: ReadonlyArray<string> = ["revoke_spender"]

/** Events read, and their attribution rows rewritten, per transaction. */
export const BACKFILL_BATCH = 1_000

/** How a batch went: more to do, nothing left, or another instance holds the job right now. */
export type BatchOutcome = "more" | "done" | "busy"

const Job = Schema.Struct({ position: Schema.String, untilId: Schema.NullOr(Schema.String) })
/** An event of the batch: its payload only when it is of a type the job rewrites. */
const Scanned = Schema.Struct({
  id: Schema.String,
  contractId: Schema.String,
  ledgerSeq: Schema.Int,
  txApplicationOrder: Schema.Int,
  eventIndex: Schema.Int,
  topics: Schema.NullOr(Schema.Array(Schema.String)),
  value: Schema.NullOr(Schema.String)
})
type Rewritten = typeof Scanned.Type & { readonly topics: ReadonlyArray<string>; readonly value: string }

/**
 * Recomputes the attribution flags of archived events with today's rules (src/Archive/Attribution.ts), in the order of
 * their ids, `BACKFILL_BATCH` at a time. A batch is one transaction: it locks the job's row (`FOR UPDATE SKIP LOCKED`,
 * so any number of instances run it and one works at a time), reads the next events after the recorded position up
 * to the last one archived before the migration, decodes those of the `types` whose rule changed, rewrites the flags
 * that differ, and records the new position — so a crash or a restart resumes where the last commit left off. Only old
 * attribution rows are touched, which ingestion never writes again: it goes on beside the backfill, unblocked.
 */
export const makeBackfill = (name: string = ATTRIBUTION_BACKFILL, types: ReadonlyArray<string> = ATTRIBUTION_BACKFILL_TYPES) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const claim = SqlSchema.findOne({
      Request: Schema.String,
      Result: Job,
      execute: (job) =>
        sql`SELECT position, until_id FROM archive_backfills WHERE name = ${job} AND done_at IS NULL FOR UPDATE SKIP LOCKED`
    })
    const pending = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ name: Schema.String }),
      execute: (job) => sql`SELECT name FROM archive_backfills WHERE name = ${job} AND done_at IS NULL`
    })
    // The service's own rows, 1,000 a batch: taken as they come (decoding each would cost the event loop the ingester
    // shares more than the rewrite itself).
    const next = findAllTrusted({
      Request: Schema.Struct({ after: Schema.String, until: Schema.String }),
      Result: Scanned,
      execute: (q) =>
        sql`SELECT id, contract_id, ledger_seq, tx_application_order, event_index,
              CASE WHEN type = ANY(${types}::text[]) THEN topics END AS topics,
              CASE WHEN type = ANY(${types}::text[]) THEN value END AS value
            FROM archive_events
            WHERE id > ${q.after} AND id <= ${q.until} ORDER BY id LIMIT ${BACKFILL_BATCH}`
    })

    const rewrite = (scanned: ReadonlyArray<typeof Scanned.Type>) => {
      const events = scanned.filter((e): e is Rewritten => e.topics !== null && e.value !== null)
      const rows = events.flatMap((e) => attribute(e.topics, e.value).accounts.map((a) => ({ e, ...a })))
      if (rows.length === 0) return Effect.succeed(0)
      return sql`
        UPDATE archive_event_accounts AS a SET checkpoint = input.checkpoint
        FROM unnest(${rows.map((r) => r.e.contractId)}::text[], ${rows.map((r) => r.account)}::text[],
          ${rows.map((r) => r.e.ledgerSeq)}::int[], ${rows.map((r) => r.e.txApplicationOrder)}::int[],
          ${rows.map((r) => r.e.eventIndex)}::int[], ${rows.map((r) => r.checkpoint)}::boolean[])
          AS input(contract_id, account, ledger, tx_order, idx, checkpoint)
        WHERE a.contract_id = input.contract_id AND a.account = input.account AND a.ledger_seq = input.ledger
          AND a.tx_application_order = input.tx_order AND a.event_index = input.idx AND a.checkpoint <> input.checkpoint
        RETURNING 1`.pipe(Effect.map((changed) => changed.length))
    }

    /** One batch, in one transaction. */
    const batch: Effect.Effect<BatchOutcome, unknown> = Effect.gen(function*() {
      const job = yield* claim(name)
      if (Option.isNone(job)) return Option.isSome(yield* pending(name)) ? "busy" : "done"
      const until = job.value.untilId
      const events = until === null ? [] : yield* next({ after: job.value.position, until })
      const changed = yield* rewrite(events)
      const done = events.length < BACKFILL_BATCH
      yield* sql`
        UPDATE archive_backfills SET position = ${events[events.length - 1]?.id ?? job.value.position},
          events = events + ${events.length}, changed = changed + ${changed},
          done_at = CASE WHEN ${done} THEN now() END
        WHERE name = ${name}`
      return done ? "done" : "more"
    }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("Archive.backfillBatch"))

    /** What the job did: events read and flags changed, and whether it is finished. */
    const progress = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ events: Schema.Int, changed: Schema.Int, done: Schema.Boolean }),
      execute: (job) => sql`SELECT events, changed, done_at IS NOT NULL AS done FROM archive_backfills WHERE name = ${job}`
    })

    return { batch, progress: progress(name).pipe(orUnavailable) } as const
  })
