import { Clock, Duration, Effect, Layer } from "effect"
import type { SqlError } from "@effect/sql/SqlError"
import { ChallengeRepo } from "../Auth/ChallengeRepo.ts"
import { JobRepo } from "../BatchRuns/JobRepo.ts"
import { OperationsConfig, SponsorConfig } from "../Config.ts"
import { FAUCET_GRANT_WINDOW, FaucetRepo } from "../Funding/FaucetRepo.ts"
import { Drain } from "../Http/Drain.ts"
import { IdempotencyRepo } from "../Http/Idempotency/IdempotencyRepo.ts"
import { SubmissionRepo } from "../Transfers/SubmissionRepo.ts"
import { repeatRounds } from "../Workers/Rounds.ts"
import { DeliveryRepo } from "../Webhooks/DeliveryRepo.ts"
import * as Spans from "../Observability/Spans.ts"


/** At most this many batches per table and round, so one round stays short even with a large backlog. */
const MAX_BATCHES = 20

export interface Pruned {
  readonly challenges: number
  readonly quota: number
  readonly faucetGrants: number
  readonly jobs: number
  readonly submissions: number
  readonly idempotencyKeys: number
  readonly webhookDeliveries: number
  readonly webhookEvents: number
}

/**
 * Deletes what no rule reads any more: the nonces of verified SEP-10 challenges once no instance would accept their
 * challenge any more, quota reservations and faucet grants outside
 * their windows, batch-run jobs (with their results) finished more than RETENTION ago, and submissions final for
 * more than RETENTION (and the quota window, which counts them), Idempotency-Keys past their 24 hours, webhook
 * deliveries delivered or failed more than RETENTION ago and then the events no delivery refers to. Small batches with SKIP LOCKED: short
 * transactions, and any number of instances prune side by side without waiting on each other.
 */
export class Housekeeping extends Effect.Service<Housekeeping>()("Server/Housekeeping", {
  effect: Effect.gen(function*() {
    const challenges = yield* ChallengeRepo
    const submissions = yield* SubmissionRepo
    const jobs = yield* JobRepo
    const faucet = yield* FaucetRepo
    const idempotency = yield* IdempotencyRepo
    const deliveries = yield* DeliveryRepo
    const { retention } = yield* OperationsConfig
    const { quotaWindow } = yield* SponsorConfig

    const inBatches = (limit: number, prune: (limit: number) => Effect.Effect<number, SqlError>) =>
      Effect.gen(function*() {
        let total = 0
        for (let batch = 0; batch < MAX_BATCHES; batch++) {
          const n = yield* prune(limit)
          total += n
          if (n < limit) break
        }
        return total
      })

    const round = Spans.fn("Housekeeping.round")(function*() {
      const now = yield* Clock.currentTimeMillis
      const ago = (duration: Duration.Duration) => new Date(now - Duration.toMillis(duration))
      const pruned: Pruned = {
        challenges: yield* inBatches(500, (limit) => challenges.pruneExpired(new Date(now), limit)),
        quota: yield* inBatches(500, (limit) => submissions.pruneQuota(ago(quotaWindow), limit)),
        faucetGrants: yield* inBatches(500, (limit) => faucet.prune(ago(FAUCET_GRANT_WINDOW), limit)),
        jobs: yield* inBatches(20, (limit) => jobs.pruneFinished(ago(retention), limit)),
        submissions: yield* inBatches(100, (limit) => submissions.pruneFinal(ago(Duration.max(retention, quotaWindow)), limit)),
        idempotencyKeys: yield* inBatches(500, (limit) => idempotency.prune(new Date(now), limit)),
        webhookDeliveries: yield* inBatches(500, (limit) => deliveries.pruneFinished(ago(retention), limit)),
        webhookEvents: yield* inBatches(500, (limit) => deliveries.pruneEvents(ago(retention), limit))
      }
      if (Object.values(pruned).some((n) => n > 0)) yield* Effect.logInfo("housekeeping pruned rows").pipe(Effect.annotateLogs({ ...pruned }))
      return pruned
    })

    return { round } as const
  }),
  dependencies: [
    ChallengeRepo.Default,
    SubmissionRepo.Default,
    JobRepo.Default,
    FaucetRepo.Default,
    IdempotencyRepo.Default,
    DeliveryRepo.Default
  ]
}) {}

/** Every instance prunes at start-up and then every HOUSEKEEPING_INTERVAL; not while draining. */
export const HousekeepingLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const housekeeping = yield* Housekeeping
    const drain = yield* Drain
    const { housekeepingInterval, workerMaxBackoff } = yield* OperationsConfig
    yield* repeatRounds("housekeeping", Effect.asVoid(Effect.unlessEffect(housekeeping.round(), drain.draining)), {
      interval: housekeepingInterval,
      maxBackoff: Duration.min(housekeepingInterval, workerMaxBackoff)
    }).pipe(Effect.forkScoped)
  })
).pipe(Layer.provide(Housekeeping.Default))
