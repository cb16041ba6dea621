import { FeeBumpTransaction } from "@stellar/stellar-sdk"
import { Cause, Clock, Duration, Effect, Layer, Metric, Option } from "effect"
import { OperationsConfig, StellarConfig, SubmissionConfig } from "../Config.ts"
import { Drain } from "../Health/Drain.ts"
import { reconcilerRounds } from "../Observability/Metrics.ts"
import { databaseUnavailable, repeatRounds } from "../Sql/Rounds.ts"
import { RpcError } from "../Stellar/RpcClient.ts"
import { Network } from "./Network.ts"
import { Settle } from "./Settle.ts"
import { type Submission, SubmissionRepo } from "./SubmissionRepo.ts"

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
     * Final, or provably gone (the ledger closed past its maxTime without it), settles it; a transaction never
     * accepted is sent again while it still can land. Nothing is decided by the local clock. Fails when the network
     * could not be asked or its answer could not be read.
     */
    const settleOne = (row: Submission) =>
      Effect.gen(function*() {
        const outcome = yield* network.check(row.outerHash, row.maxTime.getTime() / 1000)
        if (outcome._tag !== "NotYet") return yield* settle.afterPoll(row, outcome)
        const deadline = new Date(row.maxTime.getTime() + Duration.toMillis(pollMargin))
        if (row.state === "pending" && (yield* Clock.currentTimeMillis) < deadline.getTime()) {
          const tx = new FeeBumpTransaction(row.envelope, networkPassphrase)
          const sent = yield* network.send(tx, deadline, { resend: true })
          yield* settle.afterSend(row, sent)
          if (sent._tag === "Unreachable" || sent._tag === "Unreadable") {
            return yield* new RpcError({ method: "sendTransaction", message: sent.message })
          }
        }
        return Option.none()
      })

    /**
     * One submission, isolated from the others of its round: whatever happens to it (the RPC down, an answer that
     * cannot be read, a bug) is logged and it waits longer before the next try; the round goes on. Only the database
     * going away fails the round, which then backs off as a whole.
     */
    const reconcile = (row: Submission) =>
      settleOne(row).pipe(
        Effect.matchCauseEffect({
          onSuccess: () => release(row),
          onFailure: (cause) =>
            Cause.isInterruptedOnly(cause)
              ? release(row)
              : databaseUnavailable(cause)
              ? Effect.failCause(cause)
              : Effect.zipRight(
                Option.match(Cause.failureOption(cause), {
                  onSome: (e) => Effect.logWarning(`reconciler could not settle the transfer: ${e.message}`),
                  onNone: () => Effect.logError("reconciler failed on the transfer", cause)
                }),
                retryLater(row)
              )
        }),
        Effect.catchAllCause((cause) =>
          databaseUnavailable(cause) ? Effect.failCause(cause) : Effect.logWarning("could not record the reconciler's round on a submission", cause)),
        Effect.annotateLogs({ hash: row.outerHash, source: row.source })
      )

    const round = Effect.gen(function*() {
      if (yield* drain.draining) return
      const now = yield* Clock.currentTimeMillis
      const rows = yield* repo.claimStale(new Date(now), new Date(now + leaseFor), 50)
      yield* Effect.forEach(rows, reconcile, { concurrency: 8, discard: true })
    }).pipe(Effect.withSpan("Reconciler.round"))

    yield* repeatRounds("reconciler", round, {
      interval: reconcileInterval,
      maxBackoff: workerMaxBackoff,
      onRound: (ok) => Metric.increment(Metric.tagged(reconcilerRounds, "result", ok ? "ok" : "failed"))
    }).pipe(Effect.forkScoped)
  })
)
