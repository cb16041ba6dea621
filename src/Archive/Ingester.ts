import { Clock, Duration, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { ChainEvents, type EventPosition, LedgerOutOfRange, parseEventId } from "../Stellar/ChainEvents.ts"
import type { EventsAnswer } from "../Stellar/RpcAnswers.ts"
import { RpcUnreadable } from "../Stellar/RpcClient.ts"
import { eventType } from "./Attribution.ts"
import { ArchiveConfig } from "./Config.ts"
import { EventRepo, type Head, type IncomingEvent, type LedgerRange } from "./EventRepo.ts"
import * as Spans from "../Observability/Spans.ts"

/** The lease that makes one instance the ingester. */
export const INGESTER_LEASE = "archive-ingester"

/** Stellar's target close time, for estimating when a ledger closed from the latest one's close time. */
const LEDGER_SECONDS = 5

/** How a span of ledgers went: read up to the node's latest ledger, or stopped (the round's page budget, the lease). */
type SpanEnd = "caughtUp" | "stopped"

/** An event as the archive keeps it, from the RPC's record of it. */
const incoming = (e: EventsAnswer["events"][number], position: EventPosition): IncomingEvent => ({
  id: e.id,
  ledgerSeq: e.ledger,
  ledgerCloseTime: new Date(e.ledgerClosedAt),
  txHash: e.txHash,
  txApplicationOrder: position.tx,
  eventIndex: position.event,
  type: eventType(e.topic),
  topics: e.topic,
  value: e.value
})

/**
 * Reads the configured contract's events from Stellar RPC into the archive (indexer.md "Ingestion Contract"): gaps
 * between the ranges already ingested first (while the RPC still retains them, oldest first), then the tail up to the
 * node's latest ledger. Each page commits its events with the ledgers it covered; a round stops after `pagesPerRound`
 * pages or when the lease is lost. A start below the node's retention window moves up to its oldest ledger: the
 * ledgers in between are never covered, so they are reported incomplete (and listed among the status's permanent
 * gaps); a node behind the archive (lagging) is waited for.
 */
export const makeIngester = Effect.gen(function*() {
  const config = yield* ArchiveConfig
  const chain = yield* ChainEvents
  const repo = yield* EventRepo
  const owner = randomUUID()
  const leaseMs = Duration.toMillis(config.leaseFor)

  const renew = repo.lease(INGESTER_LEASE, owner, leaseMs)

  /** Reads one span `[from, end)` (`end` undefined: up to the node's latest), committing page by page. */
  const span = (contractId: string, start: number, end: number | undefined, budget: { pages: number }, tail: boolean) =>
    Effect.gen(function*(): Effect.fn.Return<SpanEnd, unknown> {
      let from = start
      let cursor: string | undefined
      let spanFrom = start
      for (;;) {
        if (budget.pages <= 0) return "stopped"
        const request = cursor !== undefined
          ? { cursor }
          : { startLedger: from, ...(end === undefined ? {} : { endLedger: end }) }
        const answered = yield* chain.events({ contractId, limit: config.pageSize, from: request }).pipe(
          Effect.catchTag("LedgerOutOfRange", Effect.succeed)
        )
        budget.pages -= 1
        if (answered instanceof LedgerOutOfRange) {
          // The node is behind the archive (lagging): nothing to read from it yet.
          if (from > answered.latest) return "caughtUp"
          if (end !== undefined && answered.oldest >= end) return "caughtUp"
          yield* Effect.logWarning(
            `ledgers ${from}..${answered.oldest - 1} are no longer retained by Stellar RPC: they stay a gap in the archive`
          )
          from = answered.oldest
          spanFrom = answered.oldest
          cursor = undefined
          continue
        }
        const answer = answered
        const events: Array<IncomingEvent> = []
        for (const e of answer.events) {
          const position = parseEventId(e.id)
          if (Option.isNone(position) || position.value.ledger !== e.ledger) {
            return yield* new RpcUnreadable({ method: "getEvents", message: `event id ${e.id} is not a position in ledger ${e.ledger}` })
          }
          events.push(incoming(e, position.value))
        }
        const full = answer.events.length >= config.pageSize
        const windowEnd = Option.map(parseEventId(answer.cursor), (p) => p.ledger)
        const last = events[events.length - 1]
        const coveredTo = Math.min(
          full && last !== undefined ? last.ledgerSeq - 1 : Option.getOrElse(windowEnd, () => from - 1),
          answer.latestLedger
        )
        const covered: Option.Option<LedgerRange> = coveredTo >= spanFrom ? Option.some({ from: spanFrom, to: coveredTo }) : Option.none()
        const head: Head = {
          latestLedger: answer.latestLedger,
          latestCloseTime: new Date(answer.latestLedgerCloseTime * 1000),
          oldestLedger: answer.oldestLedger,
          ingestedCloseTime: !tail || Option.isNone(covered)
            ? null
            : coveredTo >= answer.latestLedger
            ? new Date(answer.latestLedgerCloseTime * 1000)
            : last !== undefined && last.ledgerSeq === coveredTo
            ? last.ledgerCloseTime
            : new Date((answer.latestLedgerCloseTime - (answer.latestLedger - coveredTo) * LEDGER_SECONDS) * 1000)
        }
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* repo.commitPage(contractId, events, covered, head, now)
        if (!(yield* renew)) return "stopped"
        if (full) {
          cursor = answer.cursor
          from = last?.ledgerSeq ?? from
          continue
        }
        cursor = undefined
        from = coveredTo + 1
        if (coveredTo >= answer.latestLedger || (end !== undefined && from >= end)) return "caughtUp"
      }
    })

  /**
   * One round: when this instance holds (or takes) the lease, fills what the RPC still retains of each gap and then
   * the tail. Whether it held the lease, and whether it read up to the node's latest ledger (nothing more to read now).
   */
  const round = (contractId: string) =>
    Effect.gen(function*() {
      if (!(yield* renew)) return { held: false, caughtUp: true }
      const ranges = yield* repo.ranges(contractId)
      const budget = { pages: config.pagesPerRound }
      const head = yield* repo.head(contractId)
      const oldest = Option.match(head, { onNone: () => 0, onSome: (h) => h.oldestLedger })
      for (let i = 1; i < ranges.length; i++) {
        const gap = { from: ranges[i - 1]!.to + 1, to: ranges[i]!.from - 1 }
        if (gap.to < oldest) continue
        if ((yield* span(contractId, Math.max(gap.from, oldest), gap.to + 1, budget, false)) === "stopped") {
          return { held: true, caughtUp: false }
        }
      }
      const last = ranges[ranges.length - 1]
      const start = last !== undefined
        ? last.to + 1
        : yield* Option.match(config.startLedger, {
          onSome: Effect.succeed,
          onNone: () => Effect.map(chain.health, (h) => h.oldestLedger)
        })
      return { held: true, caughtUp: (yield* span(contractId, start, undefined, budget, true)) === "caughtUp" }
    }).pipe(Spans.withSpan("Archive.ingestRound"))

  /**
   * Gives the lease back (on shutdown), so that another instance takes over at once. It never fails the shutdown:
   * a lease not given back lapses by itself.
   */
  const release = repo.release(INGESTER_LEASE, owner).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("could not give the ingester lease back; it lapses by itself", cause))
  )

  return { round, release, owner } as const
})
