import { FeeBumpTransaction } from "@stellar/stellar-sdk"
import { Cause, Clock, Duration, Effect, Layer, Metric, Option } from "effect"
import { OperationsConfig, StellarConfig, SubmissionConfig } from "../Config.ts"
import { Drain } from "../Http/Drain.ts"
import { reconcilerRounds } from "../Observability/Metrics.ts"
import { databaseUnavailable, repeatRounds } from "../Workers/Rounds.ts"
import { RpcError } from "../Stellar/RpcClient.ts"
import { Network, slotOf } from "./Network.ts"
import { Settle } from "./Settle.ts"
import { type Submission, SubmissionRepo } from "./SubmissionRepo.ts"
import * as Spans from "../Observability/Spans.ts"

/**
 * The round's submissions by source account, each account's in sequence-number order: resent concurrently, a later
 * one would reach the network first and fail txBadSeq.
 */
const inSequence = (rows: ReadonlyArray<Submission>, networkPassphrase: string) => {
  const accounts = new Map<string, Array<{ row: Submission; tx: FeeBumpTransaction; sequence: bigint }>>()
  for (const row of rows) {
    const tx = new FeeBumpTransaction(row.envelope, networkPassphrase)
    const group = accounts.get(row.source) ?? []
    group.push({ row, tx, sequence: BigInt(tx.innerTransaction.sequence) })
    accounts.set(row.source, group)
  }
  return [...accounts.values()].map((group) => group.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0)))
}

/**
 * Settles submissions nobody is driving: in flight when an instance stopped, or past a 504. Runs at start-up and
 * then every RECONCILE_INTERVAL in every instance; leases keep two instances off the same submission. A failed round
 * (the database down) is retried after a bounded backoff; a draining instance takes no new submissions.
 */
export const ReconcilerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { pollMargin, reconcileInterval } = yield* SubmissionConfig
    const { workerMaxBackoff } = yield* OperationsConfig
    const { networkPassphrase } = yield* StellarConfig
    const repo = yield* SubmissionRepo
    const network = yield* Network
    const settle = yield* Settle
    const drain = yield* Drain
    const leaseFor = Duration.toMillis(Duration.times(reconcileInterval, 3))

    /** Gives the submission back at once, so the next round (here or in another instance) can take it. */
    const release = (row: Submission) =>
      Effect.flatMap(Clock.currentTimeMillis, (ms) => repo.release(row.innerHash, new Date(ms)))

    /** Keeps the submission out of the next rounds for a while that doubles with each round that failed on it. */
    const retryLater = (row: Submission) =>
      Effect.flatMap(Clock.currentTimeMillis, (ms) => repo.retryLater(row.innerHash, new Date(ms), reconcileInterval, workerMaxBackoff))

    /**
     * Final, or provably gone (the ledger closed past its maxTime without it, or another transaction of its account used
     * its sequence number), settles it; a transaction never
     * accepted is sent again while it still can land and `mayResend` allows. Nothing is decided by the local clock.
     * True once the submission is final; fails when the network could not be asked or its answer could not be read.
     */
    const settleOne = (row: Submission, tx: FeeBumpTransaction, mayResend: boolean) =>
      Effect.gen(function*() {
        const outcome = yield* network.check(row.outerHash, row.maxTime.getTime() / 1000, slotOf(tx))
        if (outcome._tag !== "NotYet") return yield* Effect.as(settle.afterPoll(row, outcome), true)
        const deadline = new Date(row.maxTime.getTime() + Duration.toMillis(pollMargin))
        if (mayResend && row.state === "pending" && (yield* Clock.currentTimeMillis) < deadline.getTime()) {
          const sent = yield* network.send(tx, deadline, { resend: true })
          const refused = yield* settle.afterSend(row, sent)
          if (sent._tag === "Unreachable" || sent._tag === "Unreadable") {
            return yield* new RpcError({ method: "sendTransaction", message: sent.message })
          }
          return Option.isSome(refused)
        }
        return false
      })

    /**
     * One submission, isolated from the others of its round: whatever happens to it (the RPC down, an answer that
     * cannot be read, a bug) is logged and it waits longer before the next try; the round goes on. Only the database
     * going away fails the round, which then backs off as a whole.
     */
    const reconcile = (row: Submission, tx: FeeBumpTransaction, mayResend: boolean) =>
      settleOne(row, tx, mayResend).pipe(
        Effect.tap(() => release(row)),
        Effect.matchCauseEffect({
          onSuccess: (final) => Effect.succeed(final),
          onFailure: (cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.as(release(row), false)
              : databaseUnavailable(cause)
              ? Effect.failCause(cause)
              : Effect.zipRight(
                Option.match(Cause.failureOption(cause), {
                  onSome: (e) => Effect.logWarning(`reconciler could not settle the transfer: ${e.message}`),
                  onNone: () => Effect.logError("reconciler failed on the transfer", cause)
                }),
                retryLater(row)
              ).pipe(Effect.as(false))
        }),
        Effect.catchAllCause((cause) =>
          databaseUnavailable(cause)
            ? Effect.failCause(cause)
            : Effect.as(Effect.logWarning("could not record the reconciler's round on a submission", cause), false)),
        Effect.annotateLogs({ hash: row.outerHash, source: row.source })
      )

    const round = Effect.gen(function*() {
      if (yield* drain.draining) return
      const now = yield* Clock.currentTimeMillis
      const rows = yield* repo.claimStale(new Date(now), new Date(now + leaseFor), 50)
      yield* Effect.forEach(inSequence(rows, networkPassphrase), (account) =>
        Effect.gen(function*() {
          // An account's transactions apply in sequence order: one that is not final (in this round, or held
          // elsewhere: driven by a request, or backing off) holds back the sends after it.
          const [first] = account
          let mayResend = first === undefined ||
            !(yield* repo.earlierInFlight(first.row.source, first.sequence.toString(), account.map(({ row }) => row.innerHash)))
          for (const { row, tx } of account) {
            const final = yield* reconcile(row, tx, mayResend)
            if (!final) mayResend = false
          }
        }), { concurrency: 8, discard: true })
    }).pipe(Spans.withSpan("Reconciler.round"))

    yield* repeatRounds("reconciler", round, {
      interval: reconcileInterval,
      maxBackoff: workerMaxBackoff,
      onRound: (ok) => Metric.increment(Metric.tagged(reconcilerRounds, "result", ok ? "ok" : "failed"))
    }).pipe(Effect.forkScoped)
  })
)
