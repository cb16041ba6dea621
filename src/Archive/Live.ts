import { Duration, Effect, Exit, Layer, Option, Ref } from "effect"
import { OperationsConfig, StellarConfig } from "../Config.ts"
import { Drain } from "../Http/Drain.ts"
import { backoff, repeatRounds } from "../Workers/Rounds.ts"
import { ChainEvents } from "../Stellar/ChainEvents.ts"
import { Archive } from "./Archive.ts"
import { makeBackfill } from "./Backfill.ts"
import { ArchiveConfig } from "./Config.ts"
import { EventRepo } from "./EventRepo.ts"
import { makeIngester } from "./Ingester.ts"
import { makeReactions } from "./Reactions.ts"
import { ArchiveRateLimitLive } from "../RateLimit/Live.ts"

/**
 * The ingestion worker, in every instance, of which one at a time (the lease holder) ingests: a round reads what
 * the RPC has that the archive lacks, then follows the events the service's state reacts to. A failed round (the RPC
 * or the database down) backs off and comes back by itself; the next round starts at once while there is more to
 * read, else after ARCHIVE_POLL_INTERVAL. On shutdown the lease is given back, so another instance takes over.
 */
const IngestionLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* ArchiveConfig
    const contract = (yield* StellarConfig).confidentialTokenContract
    if (!config.ingest || Option.isNone(contract)) return
    const { workerMaxBackoff } = yield* OperationsConfig
    const drain = yield* Drain
    const ingester = yield* makeIngester
    const reactions = yield* makeReactions
    const more = yield* Ref.make(false)
    yield* Effect.addFinalizer(() => ingester.release)

    const round = Effect.gen(function*() {
      if (yield* drain.draining) return yield* Ref.set(more, false)
      const outcome = yield* ingester.round(contract.value)
      yield* Ref.set(more, outcome.held && !outcome.caughtUp)
      if (outcome.held) yield* reactions.run
    })

    yield* repeatRounds("archive ingester", round, {
      interval: config.pollInterval,
      maxBackoff: workerMaxBackoff,
      pause: Effect.flatMap(Ref.get(more), (again) => again ? Effect.yieldNow() : Effect.sleep(config.pollInterval))
    }).pipe(Effect.forkScoped)
  })
)

/** A monotonic millisecond count, unmoved by the service's clock (tests shift that one). */
const monotonic = Effect.sync(() => performance.now())

/**
 * The backfill of migration 0020, in every instance (also one that does not ingest), until the job is done. After each
 * batch it idles as long as the batch took, so the backfill takes at most half of what the instance and the database
 * give it and ingestion keeps its pace beside it; while another instance holds the job it waits ARCHIVE_POLL_INTERVAL;
 * after a failed batch (the database down) it backs off, doubling up to WORKER_MAX_BACKOFF. A drain stops it between
 * batches; the next start resumes it where the last batch committed.
 */
const BackfillLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { pollInterval } = yield* ArchiveConfig
    const { workerMaxBackoff } = yield* OperationsConfig
    const drain = yield* Drain
    const backfill = yield* makeBackfill()
    const pause = { interval: pollInterval, maxBackoff: workerMaxBackoff }

    const run = Effect.gen(function*() {
      let failures = 0
      let batches = 0
      const started = yield* monotonic
      while (!(yield* drain.draining)) {
        const batchStarted = yield* monotonic
        const exit = yield* Effect.exit(backfill.batch)
        if (Exit.isFailure(exit)) {
          failures += 1
          const delay = backoff(failures, pause)
          yield* Effect.logWarning(`archive backfill batch failed (${failures} in a row); next in ${Duration.format(delay)}`, exit.cause)
          yield* Effect.sleep(delay)
          continue
        }
        failures = 0
        if (exit.value === "done") break
        if (exit.value === "busy") {
          yield* Effect.sleep(pollInterval)
          continue
        }
        batches += 1
        yield* Effect.sleep(Duration.millis((yield* monotonic) - batchStarted))
      }
      if (batches === 0) return
      const took = Math.round((yield* monotonic) - started)
      yield* backfill.progress.pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.void,
        onSome: (p) =>
          Effect.logInfo(
            `archive backfill: checkpoint flags of ${p.events} archived events recomputed (${p.changed} changed), ` +
              `${batches} batches here in ${took} ms${p.done ? "" : "; unfinished"}`
          )
      })), Effect.ignore)
    }).pipe(Effect.annotateLogs({ worker: "archive backfill" }))

    yield* Effect.forkScoped(run)
  })
)

/** The archive's services and workers, wired into the service by src/Server/App.ts. */
export const ArchiveLive = Layer.mergeAll(Archive.DefaultWithoutDependencies, ArchiveRateLimitLive(ArchiveConfig), IngestionLive, BackfillLive).pipe(
  Layer.provideMerge(Layer.mergeAll(EventRepo.Default, ChainEvents.Default))
)
