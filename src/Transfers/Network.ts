import type { FeeBumpTransaction } from "@stellar/stellar-sdk"
import { rpc } from "@stellar/stellar-sdk"
import { Clock, Data, Duration, Effect, Schedule } from "effect"
import { RpcClient, type RpcError } from "../Stellar/RpcClient.ts"
import { resultCode } from "./ResultCode.ts"

export type SendOutcome = Data.TaggedEnum<{
  Accepted: {}
  Rejected: { readonly code: string }
  /** TRY_AGAIN_LATER until the transaction's deadline: never queued by the node. */
  Busy: {}
  Unreachable: { readonly message: string }
}>
export const SendOutcome = Data.taggedEnum<SendOutcome>()

export type PollOutcome = Data.TaggedEnum<{
  Landed: { readonly ledger: number }
  Failed: { readonly code: string; readonly ledger: number }
  /** NOT_FOUND from a node whose latest ledger closed after the transaction's maxTime: it can no longer land. */
  Gone: { readonly latestLedgerCloseTime: number }
  NotYet: {}
}>
export const PollOutcome = Data.taggedEnum<PollOutcome>()

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

const remaining = (deadline: Date) =>
  Effect.map(Clock.currentTimeMillis, (now) => Duration.millis(Math.max(0, deadline.getTime() - now)))

/** `sendTransaction` and `getTransaction`, with the network's answers turned into outcomes. */
export class Network extends Effect.Service<Network>()("Transfers/Network", {
  effect: Effect.gen(function*() {
    const client = yield* RpcClient

    /**
     * An ERROR answer is final only when the node surely never had the transaction before: after a transport failure
     * (the first request may have reached it) or on a resend, the transaction may have landed already and the error
     * (e.g. txBadSeq) says nothing; it is then followed like an accepted one, to the ledger-time rule.
     */
    const sendOnce = (tx: FeeBumpTransaction, resend: boolean) => {
      let ambiguous = resend
      return client.sendTransaction(tx).pipe(
        Effect.tapError(() => Effect.sync(() => { ambiguous = true })),
        Effect.retry(transportRetry),
        Effect.flatMap((answer): Effect.Effect<SendOutcome, TryAgainLater> => {
          switch (answer.status) {
            case "PENDING":
            case "DUPLICATE":
              return Effect.succeed(SendOutcome.Accepted())
            case "TRY_AGAIN_LATER":
              return Effect.fail(tryAgainLater)
            case "ERROR":
              return Effect.succeed(ambiguous ? SendOutcome.Accepted() : SendOutcome.Rejected({
                code: answer.errorResult === undefined ? "unknown" : resultCode(answer.errorResult)
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
          Effect.catchTag("RpcError", (e: RpcError) => Effect.succeed(SendOutcome.Unreachable({ message: e.message })))
        )
      }).pipe(Effect.withSpan("Network.send"))

    /**
     * One look at the transaction. "Not found" proves nothing until the answering node's own latest ledger closed
     * after the transaction's `maxTime` (unix seconds): a lagging node may not have seen the ledger that has it.
     */
    const check = (hash: string, maxTime: number) =>
      client.getTransaction(hash).pipe(
        Effect.map((answer): PollOutcome => {
          switch (answer.status) {
            case rpc.Api.GetTransactionStatus.SUCCESS:
              return PollOutcome.Landed({ ledger: answer.ledger })
            case rpc.Api.GetTransactionStatus.FAILED:
              return PollOutcome.Failed({ code: resultCode(answer.resultXdr), ledger: answer.ledger })
            default:
              return answer.latestLedgerCloseTime > maxTime
                ? PollOutcome.Gone({ latestLedgerCloseTime: answer.latestLedgerCloseTime })
                : PollOutcome.NotYet()
          }
        })
      )

    /**
     * Polls until the transaction is final (or provably gone) or the local deadline passes; RPC hiccups along the
     * way are retried.
     */
    const poll = (hash: string, deadline: Date, maxTime: number) =>
      Effect.gen(function*() {
        const budget = yield* remaining(deadline)
        return yield* check(hash, maxTime).pipe(
          Effect.flatMap((outcome) => outcome._tag === "NotYet" ? Effect.fail(stillMissing) : Effect.succeed(outcome)),
          Effect.retry(followSchedule(budget)),
          Effect.orElseSucceed(() => PollOutcome.NotYet())
        )
      }).pipe(Effect.withSpan("Network.poll"))

    return { send, check, poll } as const
  }),
  dependencies: [RpcClient.Default]
}) {}
