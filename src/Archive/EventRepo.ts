import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { orUnavailable } from "../Sql/Errors.ts"
import { findAllTrusted } from "../Sql/TrustedRows.ts"
import { ANCHOR_TYPES, type Attributed, attribute, START_TYPE } from "./Attribution.ts"
import * as Spans from "../Observability/Spans.ts"

/** An archived event: the chain's record of it (indexer.md "Archived record"), topics and value base64 XDR as sent. */
export const ArchivedRow = Schema.Struct({
  id: Schema.String,
  ledgerSeq: Schema.Int,
  ledgerCloseTime: Schema.DateFromSelf,
  txHash: Schema.String,
  txApplicationOrder: Schema.Int,
  eventIndex: Schema.Int,
  type: Schema.String,
  topics: Schema.Array(Schema.String),
  value: Schema.String
})
export type ArchivedRow = typeof ArchivedRow.Type

/** What ingestion hands over of one event. */
export type IncomingEvent = ArchivedRow

export interface LedgerRange {
  readonly from: number
  readonly to: number
}

/** What the RPC last said of its ledgers, and the close time of the ledger the archive is ingested through. */
export const Head = Schema.Struct({
  latestLedger: Schema.Int,
  latestCloseTime: Schema.DateFromSelf,
  oldestLedger: Schema.Int,
  ingestedCloseTime: Schema.NullOr(Schema.DateFromSelf)
})
export type Head = typeof Head.Type

/** An event the service's own state follows, not yet handled. */
export const Reaction = Schema.Struct({
  eventId: Schema.String,
  type: Schema.String,
  account: Schema.String,
  txHash: Schema.String,
  ledgerSeq: Schema.Int,
  /** Tries that could not handle it so far. */
  failures: Schema.Int
})
export type Reaction = typeof Reaction.Type

/** The events the service reacts to: a registration (the directory) and a transfer's sender side (settlement). */
const REACTS_TO: ReadonlySet<string> = new Set(["register", "transfer"])

const COLUMNS = "id, ledger_seq, ledger_close_time, tx_hash, tx_application_order, event_index, type, topics, value"
const Range = Schema.Struct({ fromLedger: Schema.Int, toLedger: Schema.Int })
const Position = Schema.Struct({ ledger: Schema.Int, tx: Schema.Int, event: Schema.Int })
export type Position = typeof Position.Type
/** The largest value of an `integer` column: a position after every event of a ledger. */
export const LAST_IN_LEDGER = 2_147_483_647
const AccountAt = Schema.Struct({ contractId: Schema.String, account: Schema.String, before: Position })

export interface PageQuery {
  readonly contractId: string
  readonly from: number
  readonly to: number
  /** Events strictly after this position. */
  readonly after: typeof Position.Type
  /** Only these event names; null: every event. */
  readonly types: ReadonlyArray<string> | null
  readonly limit: number
}

/** Unites `range` with the ranges it touches or overlaps: ranges stay disjoint and never adjacent. */
export const mergeRanges = (ranges: ReadonlyArray<LedgerRange>, range: LedgerRange): ReadonlyArray<LedgerRange> => {
  let merged = range
  const apart: Array<LedgerRange> = []
  for (const r of ranges) {
    if (r.to + 1 < merged.from || merged.to + 1 < r.from) apart.push(r)
    else merged = { from: Math.min(r.from, merged.from), to: Math.max(r.to, merged.to) }
  }
  return [...apart, merged].sort((a, b) => a.from - b.from)
}

/** The archive's SQL: events appended (never updated or pruned), their attribution, ranges, head and reactions. */
export class EventRepo extends Effect.Service<EventRepo>()("Archive/EventRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const qualified = sql.literal(COLUMNS.split(", ").map((c) => `e.${c}`).join(", "))

    const rangesOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: Range,
      execute: (contractId) =>
        sql`SELECT from_ledger, to_ledger FROM archive_ranges WHERE contract_id = ${contractId} ORDER BY from_ledger`
    })
    /** The contiguous ranges ingested, oldest first. */
    const ranges = (contractId: string) =>
      rangesOf(contractId).pipe(
        Effect.map((rows) => rows.map((r): LedgerRange => ({ from: r.fromLedger, to: r.toLedger }))),
        orUnavailable
      )

    const headOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Head,
      execute: (contractId) =>
        sql`SELECT latest_ledger, latest_close_time, oldest_ledger, ingested_close_time FROM archive_heads
            WHERE contract_id = ${contractId}`
    })
    const head = (contractId: string) => headOf(contractId).pipe(orUnavailable)

    const writeHead = (contractId: string, h: Head, now: Date) =>
      sql`
        INSERT INTO archive_heads (contract_id, latest_ledger, latest_close_time, oldest_ledger, ingested_close_time, updated_at)
        VALUES (${contractId}, ${h.latestLedger}, ${h.latestCloseTime}, ${h.oldestLedger}, ${h.ingestedCloseTime}, ${now})
        ON CONFLICT (contract_id) DO UPDATE SET
          latest_ledger = greatest(archive_heads.latest_ledger, excluded.latest_ledger),
          latest_close_time = greatest(archive_heads.latest_close_time, excluded.latest_close_time),
          oldest_ledger = excluded.oldest_ledger,
          ingested_close_time = coalesce(excluded.ingested_close_time, archive_heads.ingested_close_time),
          updated_at = excluded.updated_at`

    const insertEvents = (contractId: string, events: ReadonlyArray<IncomingEvent>) =>
      sql`
        INSERT INTO archive_events (id, contract_id, ledger_seq, ledger_close_time, tx_hash, tx_application_order,
          event_index, type, topics, value)
        SELECT id, ${contractId}, ledger, closed::timestamptz, tx_hash, tx_order, idx, type,
          CASE WHEN topics = '' THEN '{}'::text[] ELSE string_to_array(topics, ' ') END, value
        FROM unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.ledgerSeq)}::int[],
          ${events.map((e) => e.ledgerCloseTime.toISOString())}::text[], ${events.map((e) => e.txHash)}::text[],
          ${events.map((e) => e.txApplicationOrder)}::int[], ${events.map((e) => e.eventIndex)}::int[],
          ${events.map((e) => e.type)}::text[], ${events.map((e) => e.topics.join(" "))}::text[],
          ${events.map((e) => e.value)}::text[])
          AS input(id, ledger, closed, tx_hash, tx_order, idx, type, topics, value)
        ON CONFLICT (id) DO NOTHING
        RETURNING id`.pipe(Effect.map((rows) => new Set(rows.map((r) => String(r.id)))))

    type Fresh = { readonly e: IncomingEvent; readonly attributed: Attributed }

    const insertAccounts = (contractId: string, events: ReadonlyArray<Fresh>) => {
      const rows = events.flatMap(({ attributed, e }) =>
        attributed.accounts.map((a) => ({ e, account: a.account, checkpoint: a.checkpoint }))
      )
      if (rows.length === 0) return Effect.void
      return sql`
        INSERT INTO archive_event_accounts (contract_id, account, ledger_seq, tx_application_order, event_index,
          event_id, type, checkpoint)
        SELECT ${contractId}, account, ledger, tx_order, idx, event_id, type, checkpoint
        FROM unnest(${rows.map((r) => r.account)}::text[], ${rows.map((r) => r.e.ledgerSeq)}::int[],
          ${rows.map((r) => r.e.txApplicationOrder)}::int[], ${rows.map((r) => r.e.eventIndex)}::int[],
          ${rows.map((r) => r.e.id)}::text[], ${rows.map((r) => r.e.type)}::text[],
          ${rows.map((r) => r.checkpoint)}::boolean[])
          AS input(account, ledger, tx_order, idx, event_id, type, checkpoint)
        ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)
    }

    const insertReactions = (events: ReadonlyArray<Fresh>) => {
      const rows = events.flatMap(({ attributed, e }) => {
        const first = attributed.accounts[0]
        return REACTS_TO.has(attributed.type) && first !== undefined ? [{ e, type: attributed.type, account: first.account }] : []
      })
      if (rows.length === 0) return Effect.void
      return sql`
        INSERT INTO archive_reactions (event_id, type, account, tx_hash, ledger_seq)
        SELECT * FROM unnest(${rows.map((r) => r.e.id)}::text[], ${rows.map((r) => r.type)}::text[],
          ${rows.map((r) => r.account)}::text[], ${rows.map((r) => r.e.txHash)}::text[], ${rows.map((r) => r.e.ledgerSeq)}::int[])
        ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)
    }

    /** Records `covered` as ingested, merged with the ranges it touches; serialized per contract. */
    const cover = (contractId: string, covered: LedgerRange) =>
      Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`archive-ranges:${contractId}`}))`
        const before = yield* rangesOf(contractId)
        const after = mergeRanges(before.map((r) => ({ from: r.fromLedger, to: r.toLedger })), covered)
        yield* sql`DELETE FROM archive_ranges WHERE contract_id = ${contractId}`
        yield* sql`INSERT INTO archive_ranges ${
          sql.insert(after.map((r) => ({ contractId, fromLedger: r.from, toLedger: r.to })))
        }`
      })

    /**
     * One page of ingestion, in one transaction: its events (those already archived are skipped: at-least-once,
     * deduplicated by id), their attribution and reactions, the ledgers it covered and the RPC's head. The number of
     * events that were new.
     */
    const commitPage = (
      contractId: string,
      events: ReadonlyArray<IncomingEvent>,
      covered: Option.Option<LedgerRange>,
      h: Head,
      now: Date
    ) =>
      Effect.gen(function*() {
        let fresh: ReadonlyArray<Fresh> = []
        if (events.length > 0) {
          const inserted = yield* insertEvents(contractId, events)
          fresh = events.filter((e) => inserted.has(e.id)).map((e) => ({ e, attributed: attribute(e.topics, e.value) }))
          yield* insertAccounts(contractId, fresh)
          yield* insertReactions(fresh)
        }
        if (Option.isSome(covered)) yield* cover(contractId, covered.value)
        yield* writeHead(contractId, h, now)
        return fresh.length
      }).pipe(sql.withTransaction, orUnavailable, Spans.withSpan("EventRepo.commitPage", { attributes: { events: events.length } }))

    const contractPage = findAllTrusted({
      Request: Schema.Struct({
        contractId: Schema.String,
        from: Schema.Int,
        to: Schema.Int,
        after: Position,
        types: Schema.NullOr(Schema.Array(Schema.String)),
        limit: Schema.Int
      }),
      Result: ArchivedRow,
      execute: (q) =>
        sql`
          SELECT ${columns} FROM archive_events
          WHERE contract_id = ${q.contractId} AND ledger_seq BETWEEN ${q.from} AND ${q.to}
            AND (ledger_seq, tx_application_order, event_index) > (${q.after.ledger}, ${q.after.tx}, ${q.after.event})
            AND (${q.types}::text[] IS NULL OR type = ANY(${q.types}::text[]))
          ORDER BY ledger_seq, tx_application_order, event_index
          LIMIT ${q.limit}`
    })

    const accountPage = findAllTrusted({
      Request: Schema.Struct({
        contractId: Schema.String,
        account: Schema.String,
        from: Schema.Int,
        to: Schema.Int,
        after: Position,
        types: Schema.NullOr(Schema.Array(Schema.String)),
        limit: Schema.Int
      }),
      Result: ArchivedRow,
      execute: (q) =>
        sql`
          SELECT ${qualified} FROM archive_event_accounts a JOIN archive_events e ON e.id = a.event_id
          WHERE a.contract_id = ${q.contractId} AND a.account = ${q.account} AND a.ledger_seq BETWEEN ${q.from} AND ${q.to}
            AND (a.ledger_seq, a.tx_application_order, a.event_index) > (${q.after.ledger}, ${q.after.tx}, ${q.after.event})
            AND (${q.types}::text[] IS NULL OR a.type = ANY(${q.types}::text[]))
          ORDER BY a.ledger_seq, a.tx_application_order, a.event_index
          LIMIT ${q.limit}`
    })

    const latestCheckpoint = SqlSchema.findOne({
      Request: AccountAt,
      Result: ArchivedRow,
      execute: (q) =>
        sql`
          SELECT ${qualified} FROM archive_event_accounts a JOIN archive_events e ON e.id = a.event_id
          WHERE a.contract_id = ${q.contractId} AND a.account = ${q.account} AND a.checkpoint
            AND (a.ledger_seq, a.tx_application_order, a.event_index) < (${q.before.ledger}, ${q.before.tx}, ${q.before.event})
          ORDER BY a.ledger_seq DESC, a.tx_application_order DESC, a.event_index DESC
          LIMIT 1`
    })

    // No index of its own: the rows it passes lie inside the window the client replays from the anchor it finds.
    const latestAnchor = SqlSchema.findOne({
      Request: AccountAt,
      Result: ArchivedRow,
      execute: (q) =>
        sql`
          SELECT ${qualified} FROM archive_event_accounts a JOIN archive_events e ON e.id = a.event_id
          WHERE a.contract_id = ${q.contractId} AND a.account = ${q.account}
            AND a.type = ANY(${[...ANCHOR_TYPES, START_TYPE]}::text[])
            AND (a.ledger_seq, a.tx_application_order, a.event_index) < (${q.before.ledger}, ${q.before.tx}, ${q.before.event})
          ORDER BY a.ledger_seq DESC, a.tx_application_order DESC, a.event_index DESC
          LIMIT 1`
    })

    const firstStart = SqlSchema.findOne({
      Request: AccountAt,
      Result: ArchivedRow,
      execute: (q) =>
        sql`
          SELECT ${qualified} FROM archive_event_accounts a JOIN archive_events e ON e.id = a.event_id
          WHERE a.contract_id = ${q.contractId} AND a.account = ${q.account} AND a.type = ${START_TYPE}
            AND (a.ledger_seq, a.tx_application_order, a.event_index) < (${q.before.ledger}, ${q.before.tx}, ${q.before.event})
          ORDER BY a.ledger_seq, a.tx_application_order, a.event_index
          LIMIT 1`
    })

    /** The whole contract's events in a ledger range, in the total order (ledger, tx order, event index). */
    const events = (q: PageQuery) => contractPage(q).pipe(orUnavailable, Spans.withSpan("EventRepo.events"))

    /** The events attributed to `account` (indexer.md "Account attribution"), in the total order; `types` after that. */
    const accountEvents = (q: PageQuery & { readonly account: string }) =>
      accountPage(q).pipe(orUnavailable, Spans.withSpan("EventRepo.accountEvents"))

    /** The latest event flagged as the account's checkpoint before `before`. */
    const checkpoint = (contractId: string, account: string, before: Position) =>
      latestCheckpoint({ contractId, account, before }).pipe(orUnavailable, Spans.withSpan("EventRepo.checkpoint"))

    /** The account's latest `merge`, `clawback` or `register` before `before` (a checkpoint's replay anchor). */
    const anchor = (contractId: string, account: string, before: Position) =>
      latestAnchor({ contractId, account, before }).pipe(orUnavailable, Spans.withSpan("EventRepo.anchor"))

    /** The account's `register` before `before`. */
    const start = (contractId: string, account: string, before: Position) =>
      firstStart({ contractId, account, before }).pipe(orUnavailable, Spans.withSpan("EventRepo.start"))

    const pendingReactions = SqlSchema.findAll({
      Request: Schema.Int,
      Result: Reaction,
      execute: (limit) =>
        sql`SELECT event_id, type, account, tx_hash, ledger_seq, failures FROM archive_reactions
            WHERE not_before <= now() ORDER BY ledger_seq, event_id LIMIT ${limit}`
    })
    /** Reactions due, oldest ledger first. */
    const reactions = (limit: number) => pendingReactions(limit).pipe(orUnavailable)

    /** The reaction was handled (inside the transaction of the state change it caused). */
    const reacted = (eventId: string) => sql`DELETE FROM archive_reactions WHERE event_id = ${eventId}`.pipe(Effect.asVoid)

    /** The reaction could not be handled now (the RPC could not say): it waits 2^failures seconds, at most 10 minutes. */
    const reactLater = (eventId: string) =>
      sql`
        UPDATE archive_reactions SET failures = failures + 1,
          not_before = now() + least(power(2, least(failures, 20)), 600) * interval '1 second'
        WHERE event_id = ${eventId}`.pipe(Effect.asVoid, orUnavailable)

    /** Takes or renews the lease `name` for `owner`: true while it holds it (database time, so clocks may differ). */
    const lease = (name: string, owner: string, forMs: number) =>
      sql`
        INSERT INTO archive_leases (name, owner, lease_until) VALUES (${name}, ${owner}, now() + ${forMs} * interval '1 millisecond')
        ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
        WHERE archive_leases.owner = excluded.owner OR archive_leases.lease_until < now()
        RETURNING owner`.pipe(Effect.map((rows) => rows.length === 1), orUnavailable)

    /** Gives the lease back at once (on shutdown), so another instance takes over without waiting for it to lapse. */
    const release = (name: string, owner: string) =>
      sql`UPDATE archive_leases SET lease_until = now() WHERE name = ${name} AND owner = ${owner}`.pipe(Effect.asVoid, orUnavailable)

    const holderOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ owner: Schema.String }),
      execute: (name) => sql`SELECT owner FROM archive_leases WHERE name = ${name} AND lease_until > now()`
    })
    /** Who holds the lease now, if anyone. */
    const holder = (name: string) => holderOf(name).pipe(Effect.map(Option.map((r) => r.owner)), orUnavailable)

    return {
      ranges,
      head,
      commitPage,
      events,
      accountEvents,
      checkpoint,
      anchor,
      start,
      reactions,
      reacted,
      reactLater,
      lease,
      release,
      holder
    } as const
  })
}) {}
