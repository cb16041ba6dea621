import { FeeBumpTransaction } from "@stellar/stellar-sdk"
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { StellarConfig, SubmissionConfig } from "../Config.ts"
import { Network } from "./Network.ts"
import { Settle } from "./Settle.ts"
import { type Submission, SubmissionRepo } from "./SubmissionRepo.ts"

/**
 * Settles submissions nobody is driving: in flight when an instance stopped, or past a 504. Runs at start-up and
 * then every RECONCILE_INTERVAL in every instance; leases keep two instances off the same submission.
 */
export const ReconcilerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { pollMargin, reconcileInterval } = yield* SubmissionConfig
    const { networkPassphrase } = yield* StellarConfig
    const repo = yield* SubmissionRepo
    const network = yield* Network
    const settle = yield* Settle
    const leaseFor = Duration.toMillis(Duration.times(reconcileInterval, 3))

    /**
     * Final, or provably gone (the ledger closed past its maxTime without it), settles it; a transaction never
     * accepted is sent again while it still can land. Nothing is decided by the local clock.
     */
    const reconcile = (row: Submission) =>
      Effect.gen(function*() {
        const outcome = yield* network.check(row.outerHash, row.maxTime.getTime() / 1000)
        if (outcome._tag !== "NotYet") return yield* settle.afterPoll(row, outcome)
        const deadline = new Date(row.maxTime.getTime() + Duration.toMillis(pollMargin))
        if (row.state === "pending" && (yield* Clock.currentTimeMillis) < deadline.getTime()) {
          const tx = new FeeBumpTransaction(row.envelope, networkPassphrase)
          yield* settle.afterSend(row, yield* network.send(tx, deadline, { resend: true }))
        }
      }).pipe(
        Effect.catchTag("RpcError", (e) => Effect.logWarning("reconciler could not reach Stellar RPC", e.message)),
        Effect.annotateLogs({ hash: row.outerHash, source: row.source }),
        Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (ms) => repo.lease(row.innerHash, new Date(ms))))
      )

    const round = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* repo.claimStale(new Date(now), new Date(now + leaseFor), 50)
      yield* Effect.forEach(rows, reconcile, { concurrency: 8, discard: true })
    }).pipe(
      Effect.catchAllCause((cause) => Effect.logError("reconciler round failed", cause)),
      Effect.withSpan("Reconciler.round")
    )

    yield* round.pipe(Effect.repeat(Schedule.spaced(reconcileInterval)), Effect.forkScoped)
  })
)
