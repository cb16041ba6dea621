import type { FeeBumpTransaction } from "@stellar/stellar-sdk"
import { Clock, Data, Duration, Effect, Option, Ref, Schedule } from "effect"
import { makeLedgerClock } from "../Stellar/LedgerClock.ts"
import { RpcClient, type RpcError, type RpcUnreadable } from "../Stellar/RpcClient.ts"
import { resultCodeOf } from "./ResultCode.ts"
import * as Spans from "../Observability/Spans.ts"

export type SendOutcome = Data.TaggedEnum<{
  /**
   * Taken by the node; or, with `unconfirmed`, answered ERROR (that result code) where the transaction may have
   * reached the network before (after a transport failure, or on a resend): followed like an accepted one.
   */
  Accepted: { readonly unconfirmed?: string }
  Rejected: { readonly code: string }
  /** TRY_AGAIN_LATER until the transaction's deadline: never queued by the node. */
  Busy: {}
  Unreachable: { readonly message: string }
  /** The node answered in a shape the service cannot read: whether it took the transaction is unknown. */
  Unreadable: { readonly message: string }
}>
export const SendOutcome = Data.taggedEnum<SendOutcome>()

export type PollOutcome = Data.TaggedEnum<{
  Landed: { readonly ledger?: number; readonly closedAt?: Date }
  Failed: { readonly code: string; readonly ledger?: number }
  /** NOT_FOUND from a node whose latest ledger closed after the transaction's maxTime: it can no longer land. */
  Gone: { readonly latestLedgerCloseTime: number }
  /** NOT_FOUND from a node whose source account had already used the transaction's sequence number: it never will. */
  Superseded: {}
  NotYet: {}
}>
export const PollOutcome = Data.taggedEnum<PollOutcome>()

/** The transaction's source account and sequence number: what shows that another transaction took its place. */
export interface SequenceSlot {
  readonly source: string
  readonly sequence: bigint
}

/** The slot of a fee-bumped transaction: its inner transaction's source account and sequence number. */
export const slotOf = (tx: FeeBumpTransaction): SequenceSlot => ({
  source: tx.innerTransaction.source,
  sequence: BigInt(tx.innerTransaction.sequence)
})

class TryAgainLater extends Data.TaggedError("TryAgainLater")<{}> {}
/** Not on the ledger yet: polled again. */
class StillMissing extends Data.TaggedError("StillMissing")<{}> {}

// Signals for the retry schedules, made once: an error captures a stack trace when it is built.
const tryAgainLater = new TryAgainLater()
const stillMissing = new StillMissing()

/** Exponential from 250 ms, each step capped at 1 s, jittered, for at most `budget`. */
export const followSchedule = (budget: Duration.Duration) =>
  Schedule.exponential("250 millis").pipe(
    Schedule.union(Schedule.spaced("1 second")),
    Schedule.jittered,
    Schedule.upTo(budget)
  )

/** Transport failures are retried briefly before the caller hears of them. */
const transportRetry = Schedule.exponential("200 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3)))

/** After a look that failed on the transport (its own brief retries spent), the next one waits at least this long. */
const TRANSPORT_PAUSE = Duration.seconds(1)
/** Transactions sent and not yet polled, remembered with the ledger latest when they were accepted. */
const SENT_KEPT = 4_096

const remaining = (deadline: Date) =>
  Effect.map(Clock.currentTimeMillis, (now) => Duration.millis(Math.max(0, deadline.getTime() - now)))

/**
 * `sendTransaction` and `getTransaction`, with the network's answers turned into outcomes. Every answer feeds the
 * instance's ledger clock, which times the polls to the ledger closes.
 */
export class Network extends Effect.Service<Network>()("Transfers/Network", {
  effect: Effect.gen(function*() {
    const client = yield* RpcClient
    const clock = yield* makeLedgerClock
    const sentIn = new Map<string, number>()

    /** Runs an RPC call and feeds the latest ledger its answer reports to the clock. */
    const observed = <A extends { readonly latestLedger: number; readonly latestLedgerCloseTime: number }, E>(
      call: Effect.Effect<A, E>
    ) =>
      Effect.flatMap(Clock.currentTimeMillis, (started) =>
        Effect.tap(call, (answer) => clock.observe(answer.latestLedger, answer.latestLedgerCloseTime, started)))

    /** The ledger that was latest when `hash` was accepted: its poll looks once the next one is out. */
    const remember = (hash: string, ledger: number) =>
      Effect.sync(() => {
        const key = hash.toLowerCase()
        sentIn.delete(key)
        sentIn.set(key, ledger)
        if (sentIn.size > SENT_KEPT) sentIn.delete(sentIn.keys().next().value ?? key)
      })

    /**
     * An ERROR answer is final only when the node surely never had the transaction before: after a transport failure
     * (the first request may have reached it) or on a resend, the transaction may have landed already and the error
     * (e.g. txBadSeq) says nothing; it is then followed like an accepted one, to the ledger-time rule.
     */
    const sendOnce = (tx: FeeBumpTransaction, resend: boolean) => {
      let ambiguous = resend
      return observed(client.sendTransaction(tx)).pipe(
        Effect.tapError(() => Effect.sync(() => { ambiguous = true })),
        Effect.retry(transportRetry),
        Effect.flatMap((answer): Effect.Effect<SendOutcome, TryAgainLater> => {
          const ledger = answer.latestLedger
          switch (answer.status) {
            case "PENDING":
            case "DUPLICATE":
              return Effect.as(remember(answer.hash, ledger), SendOutcome.Accepted({}))
            case "TRY_AGAIN_LATER":
              return Effect.fail(tryAgainLater)
            case "ERROR":
              // An ambiguous one may have landed already: its poll looks at once.
              return ambiguous
                ? Effect.as(remember(answer.hash, ledger - 1), SendOutcome.Accepted({ unconfirmed: resultCodeOf(answer.errorResultXdr) }))
                : Effect.succeed(SendOutcome.Rejected({
                  code: resultCodeOf(answer.errorResultXdr)
                }))
          }
        })
      )
    }

    /** Sends, and keeps resending while the network says TRY_AGAIN_LATER, until the transaction's own deadline. */
    const send = (tx: FeeBumpTransaction, deadline: Date, options: { readonly resend?: boolean } = {}) =>
      Effect.gen(function*() {
        const budget = yield* remaining(deadline)
        return yield* sendOnce(tx, options.resend === true).pipe(
          Effect.retry({ schedule: followSchedule(budget), while: (e) => e._tag === "TryAgainLater" }),
          Effect.catchTag("TryAgainLater", () => Effect.succeed(SendOutcome.Busy())),
          Effect.catchTags({
            RpcError: (e) => Effect.succeed(SendOutcome.Unreachable({ message: e.message })),
            RpcUnreadable: (e) => Effect.succeed(SendOutcome.Unreadable({ message: e.message }))
          })
        )
      }).pipe(Spans.withSpan("Network.send"))

    /** `getTransaction` as an outcome, with the latest ledger the answering node had. */
    const lookUp = (hash: string, maxTime: number) =>
      observed(client.getTransaction(hash)).pipe(
        Effect.map((answer) => {
          const { latestLedger, ledger } = answer
          const where = ledger === undefined ? {} : { ledger }
          switch (answer.status) {
            case "SUCCESS":
              return {
                latestLedger,
                outcome: PollOutcome.Landed({
                  ...where,
                  ...(answer.createdAt === undefined || answer.createdAt === 0 ? {} : { closedAt: new Date(answer.createdAt * 1000) })
                })
              }
            case "FAILED":
              return { latestLedger, outcome: PollOutcome.Failed({ code: resultCodeOf(answer.resultXdr), ...where }) }
            case "NOT_FOUND": {
              const latestLedgerCloseTime = answer.latestLedgerCloseTime
              return {
                latestLedger,
                outcome: latestLedgerCloseTime > maxTime ? PollOutcome.Gone({ latestLedgerCloseTime }) : PollOutcome.NotYet()
              }
            }
          }
        })
      )

    /**
     * A look that, when the transaction is not found, also asks whether its source account has used its sequence
     * number: an account's next transaction must carry a higher number, so once the account's number reached this
     * one's, the transaction has applied or never will (another took its number: one that replaced it by fee in the
     * node's queue, or one sent elsewhere). Asked in that order, the account first and then the transaction from a
     * node at that ledger or later, "not found" proves it will never land. `after`: only when the look's latest ledger
     * is past it (the ledger after the one the transaction should have been in). A number that cannot be read proves
     * nothing, and the look stands. The rule: a transaction applies only while its account's number is below its own,
     * with or without CAP-21's `minSeqNum` (stellar/stellar-protocol, core/cap-0021.md); `getLedgerEntries` answers as
     * of its `latestLedger` (stellar/stellar-rpc, protocol/get_ledger_entries.go).
     */
    const lookUpInTurn = (hash: string, maxTime: number, slot: SequenceSlot | undefined, after: number) =>
      Effect.flatMap(lookUp(hash, maxTime), (look) =>
        look.outcome._tag !== "NotYet" || slot === undefined || look.latestLedger <= after
          ? Effect.succeed(look)
          : client.getSequenceAt(slot.source).pipe(
            Effect.flatMap(({ latestLedger: usedBy, sequence }) =>
              Option.exists(sequence, (s) => s >= slot.sequence)
                ? Effect.map(lookUp(hash, maxTime), (again) =>
                  again.outcome._tag === "NotYet" && again.latestLedger >= usedBy ? { ...again, outcome: PollOutcome.Superseded() } : again)
                : Effect.succeed(look)),
            Effect.orElseSucceed(() => look)
          ))

    /**
     * One look at the transaction. "Not found" proves nothing until the answering node's own latest ledger closed
     * after the transaction's `maxTime` (unix seconds): a lagging node may not have seen the ledger that has it; or
     * until its source account used its sequence number (`slot`, see `lookUpInTurn`).
     */
    const check = (hash: string, maxTime: number, slot?: SequenceSlot) =>
      Effect.map(lookUpInTurn(hash, maxTime, slot, Number.NEGATIVE_INFINITY), ({ outcome }) => outcome)

    /**
     * Follows the transaction until it is final (or provably gone) or the local deadline passes. It looks just after
     * the ledger following the one latest at its send is expected to be served, then once per ledger; one look at a
     * time for the whole instance while a ledger is overdue. RPC hiccups along the way are retried. From the second
     * ledger on, a transaction not found is also checked against its account's sequence number (`lookUpInTurn`).
     */
    const poll = (hash: string, deadline: Date, maxTime: number, slot?: SequenceSlot) =>
      Effect.gen(function*() {
        const key = hash.toLowerCase()
        const known = sentIn.get(key)
        sentIn.delete(key)
        const sentAt = known ?? (yield* clock.latest) - 1
        const seen = yield* Ref.make(sentAt)
        const look = Effect.flatMap(Ref.get(seen), (after) =>
          clock.look(after, lookUpInTurn(hash, maxTime, slot, sentAt + 1).pipe(Effect.retry(transportRetry))))
        return yield* look.pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(stillMissing),
            onSome: ({ latestLedger, outcome }) =>
              outcome._tag === "NotYet"
                ? Effect.zipRight(Ref.update(seen, (s) => Math.max(s, latestLedger)), Effect.fail(stillMissing))
                : Effect.succeed(outcome)
          })),
          Effect.retry(clock.schedule(Ref.get(seen), deadline.getTime(), (e: StillMissing | RpcError | RpcUnreadable) =>
            e._tag === "StillMissing" ? Duration.zero : TRANSPORT_PAUSE)),
          Effect.orElseSucceed(() => PollOutcome.NotYet())
        )
      }).pipe(Spans.withSpan("Network.poll"))

    return { send, check, poll } as const
  }),
  dependencies: [RpcClient.Default]
}) {}
