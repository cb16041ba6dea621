import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { AuditActor } from "../Domain/Actor.ts"
import { OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"
import { GENESIS, link } from "./Chain.ts"

/** The most rows one seal links: one short transaction, whatever the backlog. */
export const SEAL_BATCH = 1_000

/** node-postgres hands `bigint` columns over as text; positions and seqs stay far below 2^53. */
const Int8 = Schema.NumberFromString.pipe(Schema.int())

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

/**
 * Rows waiting to be linked: all three link columns empty, the only rows the table lets a seal update. A linked row
 * a hand edit emptied in part keeps its position, so the walk, not a seal, meets it. `hash IS NULL` first: the
 * partial index `audit_log_unlinked` holds exactly those rows.
 */
const UNLINKED = "hash IS NULL AND position IS NULL AND prev_hash IS NULL"

/** A row as the trail is read, in `seq` order. */
export const AuditRow = Schema.Struct({ seq: Int8, ...Content })
export type AuditRow = typeof AuditRow.Type

/** A linked row; a hand edit may have emptied a link column, which the verifier reports rather than fails on. */
const LinkedRow = Schema.Struct({
  ...Content,
  position: Int8,
  prevHash: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  hash: Schema.NullOr(Schema.Uint8ArrayFromSelf)
})

const Head = Schema.Struct({ position: Int8, hash: Schema.NullOr(Schema.Uint8ArrayFromSelf) })
const Count = Schema.Struct({ n: Schema.Int })
const OfOrg = Schema.Struct({ orgId: OrgId })
const OrgPage = Schema.Struct({ orgId: OrgId, after: Schema.Number, limit: Schema.Number })

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
 * The audit trail as stored (`audit_log`, migration 0019): pages of it, and its hash chain. Rows are linked by
 * `seal`, under a per-organization advisory lock that only sealers take (writers append without it), in the order
 * they are linked: a row committed late with a lower `seq` simply takes the next position.
 */
export class AuditRepo extends Effect.Service<AuditRepo>()("Audit/AuditRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decodePage = Schema.decodeUnknown(Schema.Array(AuditRow))
    const decodeCount = Schema.decodeUnknown(Schema.Array(Count))

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

    const head = SqlSchema.findOne({
      Request: OfOrg,
      Result: Head,
      execute: ({ orgId }) =>
        sql`SELECT position, hash FROM audit_log WHERE org_id = ${orgId} AND position IS NOT NULL ORDER BY position DESC LIMIT 1`
    })
    const unlinked = SqlSchema.findAll({
      Request: OfOrg,
      Result: AuditRow,
      execute: ({ orgId }) =>
        sql`SELECT seq, ${sql.literal(CONTENT)} FROM audit_log WHERE org_id = ${orgId} AND ${sql.literal(UNLINKED)}
          ORDER BY seq LIMIT ${SEAL_BATCH}`
    })

    /** Links up to SEAL_BATCH unlinked rows after the chain's head, in one transaction; answers how many. */
    const seal = (orgId: OrgId) =>
      sql.withTransaction(Effect.gen(function*() {
        // Taken first: at READ COMMITTED every later statement sees what the previous sealer committed.
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`audit_log:${orgId}`}))`
        const rows = yield* unlinked({ orgId })
        if (rows.length === 0) return 0
        const last = Option.getOrElse(yield* head({ orgId }), () => GENESIS)
        // Only a hand edit empties a linked row's hash: the chain is not extended past it, and verify names it.
        if (last.hash === null) return yield* Effect.as(Effect.logWarning("audit chain head has no hash; not sealing"), 0)
        const links = link({ position: last.position, hash: last.hash }, rows)
        const [updated] = yield* sql`
          WITH linked AS (
            UPDATE audit_log SET position = l.position, prev_hash = l.prev_hash, hash = l.hash
            FROM unnest(${links.map((l) => l.id)}::uuid[], ${links.map((l) => l.position)}::bigint[],
              ${links.map((l) => l.prevHash)}::bytea[], ${links.map((l) => l.hash)}::bytea[])
              AS l(id, position, prev_hash, hash)
            WHERE audit_log.id = l.id AND audit_log.hash IS NULL
            RETURNING 1)
          SELECT count(*)::int AS n FROM linked`.pipe(Effect.flatMap(decodeCount))
        if (updated?.n !== links.length) return yield* Effect.dieMessage(`audit_log: linked ${updated?.n} of ${links.length} rows`)
        return links.length
      })).pipe(orUnavailable, Spans.withSpan("AuditRepo.seal", { attributes: { orgId } }))

    const orgsToSeal = SqlSchema.findAll({
      Request: Schema.Number,
      Result: OfOrg,
      execute: (limit) => sql`SELECT DISTINCT org_id FROM audit_log WHERE ${sql.literal(UNLINKED)} LIMIT ${limit}`
    })
    /** Organizations with rows waiting to be linked, at most `limit`. */
    const unlinkedOrgs = (limit: number) =>
      orgsToSeal(limit).pipe(Effect.map((rows) => rows.map((r) => r.orgId)), orUnavailable, Spans.withSpan("AuditRepo.unlinkedOrgs"))

    const linkedPage = SqlSchema.findAll({
      Request: OrgPage,
      Result: LinkedRow,
      execute: ({ orgId, after, limit }) =>
        sql`
          SELECT ${sql.literal(CONTENT)}, position, prev_hash, hash FROM audit_log
          WHERE org_id = ${orgId} AND position > ${after} ORDER BY position LIMIT ${limit}`
    })
    /** The linked rows after position `after`, in chain order, at most `limit`. */
    const linked = (orgId: OrgId, after: number, limit: number) =>
      linkedPage({ orgId, after, limit }).pipe(orUnavailable, Spans.withSpan("AuditRepo.linked"))

    const countPending = SqlSchema.single({
      Request: OfOrg,
      Result: Count,
      execute: ({ orgId }) => sql`SELECT count(*)::int AS n FROM audit_log WHERE org_id = ${orgId} AND ${sql.literal(UNLINKED)}`
    })
    /** How many of the organization's rows wait to be linked. */
    const pending = (orgId: OrgId) =>
      countPending({ orgId }).pipe(Effect.map((r) => r.n), orUnavailable, Spans.withSpan("AuditRepo.pending"))

    return { page, seal, unlinkedOrgs, linked, pending } as const
  })
}) {}
