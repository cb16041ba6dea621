import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Array, Effect, Option, Schema } from "effect"
import { AuditActor } from "../Domain/Actor.ts"
import { OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"
import { GENESIS, link } from "./Chain.ts"

/** The one sealer at a time, across instances: the advisory lock every seal takes first. */
const SEAL_LOCK = "audit-sealer"

/** The most rows one seal round links, over all organizations: one short transaction, whatever the backlog. */
export const SEAL_BATCH = 1_000

/** node-postgres hands `bigint` columns over as text; positions and seqs stay far below 2^53. */
const Int8 = Schema.NumberFromString.pipe(Schema.int())

/** A transaction id (`xid8`) as text: 64 bits, so it is compared as a bigint, never as a number. */
const Xid = Schema.String.pipe(Schema.pattern(/^\d+$/))

const Content = {
  id: Schema.String,
  orgId: Schema.String,
  at: Schema.DateFromSelf,
  actorType: AuditActor.fields.type,
  actorId: Schema.String,
  action: Schema.String,
  subjectType: Schema.String,
  subjectId: Schema.String,
  fromState: Schema.NullOr(Schema.String),
  toState: Schema.NullOr(Schema.String),
  requestId: Schema.NullOr(Schema.String)
}
const CONTENT = "id, org_id, at, actor_type, actor_id, action, subject_type, subject_id, from_state, to_state, request_id"

/** A row as the trail is read, in `seq` order. */
export const AuditRow = Schema.Struct({ seq: Int8, ...Content })
export type AuditRow = typeof AuditRow.Type

/** A row as the sealer reads it: its place in (xid, seq) order besides its content. */
const Unsealed = Schema.Struct({ seq: Int8, xid: Xid, ...Content })

/** Where the sealer is: the oldest transaction still running (nothing below it can still appear) and its cursor. */
const Progress = Schema.Struct({ bound: Xid, xid: Xid, seq: Int8 })

/** The last seal of an organization: where its chain ends. */
const SealHead = Schema.Struct({ orgId: Schema.String, lastPosition: Int8, lastHash: Schema.Uint8ArrayFromSelf })

/** A seal as verification reads it: the rows it linked, in chain order from `firstPosition`, and their hashes. */
export const Seal = Schema.Struct({
  firstPosition: Int8,
  lastPosition: Int8,
  ids: Schema.Array(Schema.String),
  hashes: Schema.Uint8ArrayFromSelf
})
export type Seal = typeof Seal.Type

const Count = Schema.Struct({ n: Schema.Int })
const OfOrg = Schema.Struct({ orgId: OrgId })
const SealPage = Schema.Struct({ orgId: OrgId, after: Schema.Number, limit: Schema.Number })

/** One round of sealing: how many rows it linked, and the bound it linked up to (a transaction id). */
export interface SealRound {
  readonly sealed: number
  readonly bound: bigint
}

/** `GET /audit`'s filters; each one given narrows the page. `from` is inclusive, `to` exclusive. */
export interface AuditFilters {
  readonly subjectType?: string | undefined
  readonly subjectId?: string | undefined
  readonly actor?: string | undefined
  readonly action?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

/**
 * The audit trail as stored (`audit_log`, migrations 0019 and 0022): pages of it, and its hash chain (`audit_seals`).
 * Writers append rows without a lock; one sealer at a time links them, in (xid, seq) order up to the oldest
 * transaction still running, so a row committed late is never passed over: its transaction held the bound back.
 */
export class AuditRepo extends Effect.Service<AuditRepo>()("Audit/AuditRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decodePage = Schema.decodeUnknown(Schema.Array(AuditRow))
    const decodeUnsealed = Schema.decodeUnknown(Schema.Array(Unsealed))
    const decodeProgress = Schema.decodeUnknown(Schema.Array(Progress))
    const decodeHeads = Schema.decodeUnknown(Schema.Array(SealHead))

    /** Newest first, `limit + 1` rows, so the caller can tell whether another page follows. */
    const page = (orgId: OrgId, filters: AuditFilters, limit: number, afterSeq: Option.Option<number>) => {
      const when = <A>(value: A | undefined, f: (value: A) => Fragment) => value === undefined ? [] : [f(value)]
      return sql`
        SELECT seq, ${sql.literal(CONTENT)} FROM audit_log
        WHERE ${
        sql.and([
          sql`org_id = ${orgId}`,
          ...when(filters.subjectType, (v) => sql`subject_type = ${v}`),
          ...when(filters.subjectId, (v) => sql`subject_id = ${v}`),
          ...when(filters.actor, (v) => sql`actor_id = ${v}`),
          ...when(filters.action, (v) => sql`action = ${v}`),
          ...when(filters.from, (v) => sql`at >= ${v}`),
          ...when(filters.to, (v) => sql`at < ${v}`),
          ...Option.toArray(Option.map(afterSeq, (seq) => sql`seq < ${seq}`))
        ])
      }
        ORDER BY seq DESC LIMIT ${limit + 1}`.pipe(Effect.flatMap(decodePage), orUnavailable, Spans.withSpan("AuditRepo.page"))
    }

    /**
     * Links up to SEAL_BATCH rows after the cursor, of every organization, in one transaction: each organization's
     * rows become one seal after its chain's head. `wait` waits for a sealer running elsewhere; without it, a round
     * that finds one running links nothing (that sealer is doing the work).
     */
    const seal = (wait: boolean) =>
      sql.withTransaction(Effect.gen(function*() {
        const [locked] = yield* (wait
          ? sql`SELECT true AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${SEAL_LOCK}))) AS l`
          : sql`SELECT pg_try_advisory_xact_lock(hashtext(${SEAL_LOCK})) AS locked`)
        if (locked?.locked !== true) return { sealed: 0, bound: 0n }
        // The first statement after the lock, before this transaction writes (and so has an id of its own).
        const [progress] = yield* sql`
          SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS bound, xid::text AS xid, seq FROM audit_seal_cursor`.pipe(
            Effect.flatMap(decodeProgress)
          )
        if (progress === undefined) return yield* Effect.dieMessage("audit_seal_cursor has no row")
        const bound = BigInt(progress.bound)
        const rows = yield* sql`
          SELECT seq, xid::text AS xid, ${sql.literal(CONTENT)} FROM audit_log
          WHERE (xid, seq) > (${progress.xid}::xid8, ${progress.seq}) AND xid < ${progress.bound}::xid8
          ORDER BY xid, seq LIMIT ${SEAL_BATCH}`.pipe(Effect.flatMap(decodeUnsealed))
        const last = rows.at(-1)
        if (last === undefined) return { sealed: 0, bound }
        const byOrg = Array.groupBy(rows, (row) => row.orgId)
        const heads = yield* sql`
          SELECT DISTINCT ON (org_id) org_id, last_position, substring(hashes FROM length(hashes) - 31) AS last_hash
          FROM audit_seals WHERE org_id = ANY(${Object.keys(byOrg)}::uuid[]) ORDER BY org_id, last_position DESC`.pipe(
            Effect.flatMap(decodeHeads)
          )
        const headOf = new Map(heads.map((h) => [h.orgId, { position: h.lastPosition, hash: h.lastHash }]))
        const seals = Object.entries(byOrg).map(([orgId, linked]) => {
          const head = headOf.get(orgId) ?? GENESIS
          return {
            orgId,
            firstPosition: head.position + 1,
            lastPosition: head.position + linked.length,
            ids: linked.map((row) => row.id),
            hashes: Buffer.concat(link(head, linked))
          }
        })
        yield* sql`INSERT INTO audit_seals ${sql.insert(seals)}`
        // Moves the cursor only from where this round read it: were the lock ever not exclusive, a second round over
        // the same rows rolls back here instead of linking them twice.
        const moved = yield* sql`
          UPDATE audit_seal_cursor SET xid = ${last.xid}::xid8, seq = ${last.seq}
          WHERE xid = ${progress.xid}::xid8 AND seq = ${progress.seq} RETURNING 1 AS moved`
        if (moved.length !== 1) return yield* Effect.dieMessage("audit_seal_cursor moved under a seal round")
        return { sealed: rows.length, bound }
      })).pipe(orUnavailable, Spans.withSpan("AuditRepo.seal"))

    /**
     * The transaction ids in use now: every transaction that had begun writing lies below `next`; `oldest` is the
     * oldest still running.
     */
    const horizon = sql`SELECT pg_snapshot_xmin(s)::text AS oldest, pg_snapshot_xmax(s)::text AS next
      FROM pg_current_snapshot() AS s`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ oldest: Xid, next: Xid })))),
        Effect.map(([h]) => ({ oldest: BigInt(h!.oldest), next: BigInt(h!.next) })),
        orUnavailable
      )

    const sealPage = SqlSchema.findAll({
      Request: SealPage,
      Result: Seal,
      execute: ({ orgId, after, limit }) =>
        sql`
          SELECT first_position, last_position, ids::text[] AS ids, hashes FROM audit_seals
          WHERE org_id = ${orgId} AND last_position > ${after} ORDER BY last_position LIMIT ${limit}`
    })
    /** The organization's seals ending after position `after`, in chain order, at most `limit`. */
    const seals = (orgId: OrgId, after: number, limit: number) =>
      sealPage({ orgId, after, limit }).pipe(orUnavailable, Spans.withSpan("AuditRepo.seals"))

    const rowsById = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: AuditRow,
      execute: (ids) => sql`SELECT seq, ${sql.literal(CONTENT)} FROM audit_log WHERE id = ANY(${ids}::uuid[])`
    })
    /** The rows with these ids, as the table holds them now (a row removed by hand is simply not there). */
    const rows = (ids: ReadonlyArray<string>) => rowsById(ids).pipe(orUnavailable, Spans.withSpan("AuditRepo.rows"))

    const countPending = SqlSchema.single({
      Request: OfOrg,
      Result: Count,
      execute: ({ orgId }) =>
        sql`SELECT count(*)::int AS n FROM audit_log a, audit_seal_cursor c
          WHERE (a.xid, a.seq) > (c.xid, c.seq) AND a.org_id = ${orgId}`
    })
    /** How many of the organization's rows wait to be linked. */
    const pending = (orgId: OrgId) =>
      countPending({ orgId }).pipe(Effect.map((r) => r.n), orUnavailable, Spans.withSpan("AuditRepo.pending"))

    const dueOrgs = SqlSchema.findAll({
      Request: Schema.Struct({ dueBefore: Schema.DateFromSelf, limit: Schema.Int }),
      Result: OfOrg,
      execute: ({ dueBefore, limit }) =>
        sql`
          SELECT DISTINCT e.org_id FROM webhook_endpoints e
          LEFT JOIN audit_checkpoint_sends s ON s.org_id = e.org_id
          WHERE e.disabled_at IS NULL AND 'audit.checkpoint' = ANY(e.events)
            AND (s.sent_at IS NULL OR s.sent_at <= ${dueBefore})
          LIMIT ${limit}`
    })
    /**
     * Organizations whose checkpoint is due: an enabled webhook endpoint of theirs subscribes to `audit.checkpoint`, and
     * none was sent since `dueBefore` (a new subscriber's first is due at once). At most `limit` of them.
     */
    const checkpointsDue = (dueBefore: Date, limit: number) =>
      dueOrgs({ dueBefore, limit }).pipe(Effect.map(Array.map((r) => r.orgId)), orUnavailable, Spans.withSpan("AuditRepo.checkpointsDue"))

    /**
     * Records that the organization's checkpoint is sent now, unless another instance did since `dueBefore`: true when
     * this caller is the one to send it. Run in the transaction that queues the event, so a crash loses neither.
     */
    const claimCheckpoint = (orgId: OrgId, now: Date, dueBefore: Date) =>
      sql`
        INSERT INTO audit_checkpoint_sends (org_id, sent_at) VALUES (${orgId}, ${now})
        ON CONFLICT (org_id) DO UPDATE SET sent_at = EXCLUDED.sent_at WHERE audit_checkpoint_sends.sent_at <= ${dueBefore}
        RETURNING 1 AS claimed`.pipe(Effect.map((rows) => rows.length === 1), orUnavailable, Spans.withSpan("AuditRepo.claimCheckpoint"))

    return { page, seal, horizon, seals, rows, pending, checkpointsDue, claimCheckpoint } as const
  })
}) {}
