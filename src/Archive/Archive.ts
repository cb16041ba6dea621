import { Clock, DateTime, Effect, Option, Schema } from "effect"
import { StellarConfig } from "../Config.ts"
import { InvalidRequest, NotFound } from "../Domain/Errors.ts"
import { StellarAddress } from "../Domain/Stellar.ts"
import { parseEventId } from "../Stellar/ChainEvents.ts"
import { isCheckpointOf } from "./Attribution.ts"
import { ArchiveConfig } from "./Config.ts"
import {
  ArchiveCheckpoint,
  ArchiveEvent,
  ArchiveEventPage,
  ArchiveStatus,
  type CheckpointParams,
  type EventsParams,
  LedgerGap
} from "./Event.ts"
import { type ArchivedRow, EventRepo, LAST_IN_LEDGER, type LedgerRange, type Position } from "./EventRepo.ts"
import { permanentGaps } from "./Gaps.ts"
import * as Spans from "../Observability/Spans.ts"

const DEFAULT_LIMIT = 100

/** An archived row as the API's event; not validated again (ingestion validated what it wrote). */
const toEvent = (row: ArchivedRow) =>
  new ArchiveEvent({
    id: row.id,
    ledger: row.ledgerSeq,
    ledgerClosedAt: DateTime.unsafeFromDate(row.ledgerCloseTime),
    txHash: row.txHash,
    txApplicationOrder: row.txApplicationOrder,
    eventIndex: row.eventIndex,
    type: row.type,
    topics: row.topics,
    value: row.value
  }, { disableValidation: true })

/** Whether one contiguous ingested range holds every ledger of `[from, to]` (indexer.md C3). */
const covers = (ranges: ReadonlyArray<LedgerRange>, from: number, to: number) =>
  ranges.some((r) => r.from <= from && r.to >= to)

const unknownToken = new NotFound({ error: "this service archives no such token" })
const noAddress = new NotFound({ error: "no such account: not a Stellar address (G... or C...)" })
const isAddress = Schema.is(StellarAddress)

/** The archive's read side (indexer.md "API Surface"): status, the ordered histories and the latest checkpoint. */
export class Archive extends Effect.Service<Archive>()("Archive/Archive", {
  effect: Effect.gen(function*() {
    const repo = yield* EventRepo
    const { confidentialTokenContract } = yield* StellarConfig
    const startLedger = Option.getOrUndefined((yield* ArchiveConfig).startLedger)

    const archived = (contractId: string, account?: string) =>
      !Option.contains(confidentialTokenContract, contractId)
        ? Effect.fail(unknownToken)
        : account !== undefined && !isAddress(account)
        ? Effect.fail(noAddress)
        : Effect.void

    const status = Effect.gen(function*() {
      const contract = Option.getOrUndefined(confidentialTokenContract)
      if (contract === undefined) {
        return new ArchiveStatus({ latestLedger: null, ingestedThrough: null, lagSeconds: null, gaps: [] })
      }
      const [ranges, head] = yield* Effect.all([repo.ranges(contract), repo.head(contract)], { concurrency: 2 })
      const now = yield* Clock.currentTimeMillis
      const ingested = Option.flatMap(head, (h) => Option.fromNullable(h.ingestedCloseTime))
      const gaps = Option.match(head, { onNone: () => [], onSome: (h) => permanentGaps(ranges, h.oldestLedger, startLedger) })
      return new ArchiveStatus({
        latestLedger: Option.match(head, { onNone: () => null, onSome: (h) => h.latestLedger }),
        ingestedThrough: ranges[ranges.length - 1]?.to ?? null,
        lagSeconds: ranges.length === 0
          ? null
          : Option.match(ingested, { onNone: () => null, onSome: (at) => Math.max(0, Math.round((now - at.getTime()) / 1000)) }),
        gaps: gaps.map((gap) => new LedgerGap({ fromLedger: gap.from, toLedger: gap.to }))
      })
    }).pipe(Spans.withSpan("Archive.status"))

    /** The requested range with its defaults, the position to read after, and whether the range is complete. */
    const window = (contractId: string, params: EventsParams, account?: string) =>
      Effect.gen(function*() {
        yield* archived(contractId, account)
        const ranges = yield* repo.ranges(contractId)
        const from = params.fromLedger ?? ranges[0]?.from ?? 1
        const to = params.toLedger ?? ranges[ranges.length - 1]?.to ?? 0
        if (params.fromLedger !== undefined && params.toLedger !== undefined && from > to) {
          return yield* new InvalidRequest({ error: "fromLedger must not be after toLedger" })
        }
        let after = { ledger: from, tx: -1, event: -1 }
        if (params.cursor !== undefined) {
          const position = parseEventId(params.cursor)
          if (Option.isNone(position) || position.value.ledger < from || position.value.ledger > to) {
            return yield* new InvalidRequest({ error: "cursor is not a position within the requested ledger range" })
          }
          after = { ledger: position.value.ledger, tx: position.value.tx, event: position.value.event }
        }
        const types = params.types === undefined ? null : params.types.split(",")
        return { from, to, after, types, limit: params.limit ?? DEFAULT_LIMIT, complete: to >= from && covers(ranges, from, to) }
      })

    const page = (rows: ReadonlyArray<ArchivedRow>, limit: number, complete: boolean) => {
      const events = rows.slice(0, limit).map(toEvent)
      const more = rows.length > limit
      return new ArchiveEventPage({ events, cursor: more ? events[events.length - 1]!.id : null, complete }, { disableValidation: true })
    }

    /** The token's whole event stream in a ledger range (C2, per contract). */
    const events = (contractId: string, params: EventsParams) =>
      Effect.gen(function*() {
        const w = yield* window(contractId, params)
        if (w.to < w.from) return new ArchiveEventPage({ events: [], cursor: null, complete: false })
        const rows = yield* repo.events({ contractId, from: w.from, to: w.to, after: w.after, types: w.types, limit: w.limit + 1 })
        return page(rows, w.limit, w.complete)
      }).pipe(Spans.withSpan("Archive.events"))

    /** The events attributed to `account` in a ledger range (C2). */
    const accountEvents = (contractId: string, account: string, params: EventsParams) =>
      Effect.gen(function*() {
        const w = yield* window(contractId, params, account)
        if (w.to < w.from) return new ArchiveEventPage({ events: [], cursor: null, complete: false })
        const rows = yield* repo.accountEvents({
          contractId,
          account,
          from: w.from,
          to: w.to,
          after: w.after,
          types: w.types,
          limit: w.limit + 1
        })
        return page(rows, w.limit, w.complete)
      }).pipe(Spans.withSpan("Archive.accountEvents"))

    /**
     * The latest event flagged as the account's checkpoint that still is one by its own shape: a row archived before
     * the flags were recomputed (src/Archive/Backfill.ts) may flag a proofless `revoke_spender`, which is passed over.
     */
    const latestCheckpoint = (contractId: string, account: string, at: number) =>
      Effect.gen(function*() {
        let before: Position = { ledger: at, tx: LAST_IN_LEDGER, event: LAST_IN_LEDGER }
        for (;;) {
          const found = yield* repo.checkpoint(contractId, account, before)
          if (Option.isNone(found) || isCheckpointOf(found.value, account)) return found
          before = { ledger: found.value.ledgerSeq, tx: found.value.txApplicationOrder, event: found.value.eventIndex }
        }
      })

    /**
     * The account's latest checkpoint at or before `atLedger` (C1), and the anchor `T_0` its replay starts after
     * (wallet-state.md "Recovery" step 5): the latest `merge` or `clawback` at or before the checkpoint, else the
     * account's `register`; with no checkpoint, its `register`.
     */
    const checkpoint = (contractId: string, account: string, params: CheckpointParams) =>
      Effect.gen(function*() {
        yield* archived(contractId, account)
        const ranges = yield* repo.ranges(contractId)
        const first = ranges[0]
        const at = params.atLedger ?? ranges[ranges.length - 1]?.to
        if (first === undefined || at === undefined) return new ArchiveCheckpoint({ event: null, anchor: null, complete: false })
        const found = yield* latestCheckpoint(contractId, account, at)
        const anchor = Option.isSome(found)
          ? yield* repo.anchor(contractId, account, {
            ledger: found.value.ledgerSeq,
            tx: found.value.txApplicationOrder,
            event: found.value.eventIndex
          })
          : yield* repo.start(contractId, account, { ledger: at, tx: LAST_IN_LEDGER, event: LAST_IN_LEDGER })
        const since = Option.match(anchor, { onNone: () => first.from, onSome: (row) => row.ledgerSeq })
        return new ArchiveCheckpoint({
          event: Option.getOrNull(Option.map(found, toEvent)),
          anchor: Option.getOrNull(Option.map(anchor, toEvent)),
          complete: at >= since && covers(ranges, since, at)
        })
      }).pipe(Spans.withSpan("Archive.checkpoint"))

    return { status, events, accountEvents, checkpoint } as const
  }),
  dependencies: [EventRepo.Default]
}) {}
