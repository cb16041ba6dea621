import { Effect, Layer, Option, Ref } from "effect"
import { OperationsConfig, StellarConfig } from "../Config.ts"
import { Drain } from "../Http/Drain.ts"
import { repeatRounds } from "../Sql/Rounds.ts"
import { ChainEvents } from "../Stellar/ChainEvents.ts"
import { Archive } from "./Archive.ts"
import { ArchiveConfig } from "./Config.ts"
import { EventRepo } from "./EventRepo.ts"
import { makeIngester } from "./Ingester.ts"
import { ArchiveRateLimitLive } from "./RateLimitLive.ts"
import { makeReactions } from "./Reactions.ts"

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

/** The archive's services and worker, wired into the service by src/App.ts. */
export const ArchiveLive = Layer.mergeAll(Archive.DefaultWithoutDependencies, ArchiveRateLimitLive, IngestionLive).pipe(
  Layer.provideMerge(Layer.mergeAll(EventRepo.Default, ChainEvents.Default))
)
