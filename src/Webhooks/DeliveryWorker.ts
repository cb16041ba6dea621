import { PgClient } from "@effect/sql-pg"
import { Clock, Duration, Effect, Either, Exit, FiberSet, Layer, Option, Queue, Schedule, Stream } from "effect"
import { OperationsConfig } from "../Config.ts"
import { Drain } from "../Http/Drain.ts"
import { OUTBOX_CHANNEL } from "../Sql/Outbox.ts"
import { repeatRounds } from "../Workers/Rounds.ts"
import { WebhookConfig } from "./Config.ts"
import { type Attempt, type Claimed, DeliveryRepo } from "./DeliveryRepo.ts"
import { retryDelay } from "./RetrySchedule.ts"
import { send, SendFailed } from "./Sender.ts"
import { signedHeaders } from "./Signature.ts"
import { parseUrl, resolveTarget } from "./Target.ts"
import * as Spans from "../Observability/Spans.ts"

/** At most this many deliveries are claimed by one query. */
const CLAIM_BATCH = 50

/**
 * Every instance delivers: it claims due deliveries with SKIP LOCKED (the claim is a lease past the attempt's
 * timeout), attempts each in its own fiber, up to WEBHOOK_CONCURRENCY at once, and records the outcome: delivered on
 * a 2xx, else the next attempt after the backoff, else (attempts exhausted) failed, and the endpoint disabled unless a
 * delivery to it succeeded meanwhile. Each attempt resolves the endpoint's host again and checks every address before
 * connecting to the checked one. A commit that queues deliveries NOTIFYs every instance, so one starts at once;
 * without a notification (the LISTEN connection lost) the queue is polled every WEBHOOK_RETRY_BASE, at most every
 * second. An instance that dies mid-attempt leaves its claims to lapse; one that stops gives them back at once;
 * once it drains it claims nothing and lets the attempts in flight end within SHUTDOWN_TIMEOUT.
 */
export const DeliveryWorkerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const drain = yield* Drain
    const pg = yield* PgClient.PgClient
    const config = yield* WebhookConfig
    const { workerMaxBackoff } = yield* OperationsConfig
    const timeoutMs = Duration.toMillis(config.timeout)
    const leaseMs = timeoutMs * 2 + 1000
    const poll = Duration.min(config.retryBase, Duration.seconds(1))
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const wake = yield* Queue.sliding<void>(1)

    // The LISTEN connection is opened again every minute: one the database dropped (an outage) reports nothing, and
    // notifications missed meanwhile are what the polling finds.
    yield* pg.listen(OUTBOX_CHANNEL).pipe(
      Stream.interruptAfter(Duration.minutes(1)),
      Stream.runForEach(() => Queue.offer(wake, undefined)),
      Effect.catchAllCause((cause) => Effect.logDebug("webhook notifications interrupted; polling meanwhile", cause)),
      Effect.repeat(Schedule.spaced(Duration.seconds(1))),
      Effect.forkScoped
    )

    /** One attempt: the status the endpoint answered, or why there was no answer. */
    const attempt = (claimed: Claimed) =>
      Effect.gen(function*() {
        const url = yield* parseUrl(claimed.url, config)
        const target = yield* resolveTarget(url, config)
        const headers = signedHeaders(
          claimed.previousSecret === null ? [claimed.secret] : [claimed.secret, claimed.previousSecret],
          claimed.eventId, claimed.body, yield* Clock.currentTimeMillis)
        return yield* send(target, headers, claimed.body, timeoutMs)
      }).pipe(
        Effect.timeoutFail({ duration: config.timeout, onTimeout: () => new SendFailed({ reason: `no answer within ${timeoutMs} ms` }) }),
        Effect.either
      )

    const record = (claimed: Claimed, outcome: Either.Either<number, { readonly _tag: string; readonly reason: string }>) =>
      Effect.gen(function*() {
        const at = yield* now
        if (Either.isRight(outcome) && outcome.right >= 200 && outcome.right < 300) {
          return yield* repo.delivered(claimed, { at, statusCode: outcome.right, error: null })
        }
        const failed: Attempt = Either.match(outcome, {
          onRight: (status) => ({ at, statusCode: status, error: `HTTP ${status}` }),
          onLeft: (e) => ({ at, statusCode: null, error: e._tag === "TargetRefused" ? `refused: ${e.reason}` : e.reason })
        })
        const delay = retryDelay(claimed.attempts, config.retryBase, config.maxAttempts)
        if (Option.isSome(delay)) {
          yield* Effect.logDebug("webhook attempt failed; retried later").pipe(Effect.annotateLogs({ error: failed.error }))
          return yield* repo.retryAt(claimed, failed, new Date(at.getTime() + Duration.toMillis(delay.value)))
        }
        const disabled = yield* repo.giveUp(claimed, failed)
        yield* Effect.logWarning(
          disabled ? "webhook delivery failed for good; its endpoint is disabled" : "webhook delivery failed for good"
        ).pipe(Effect.annotateLogs({ attempts: claimed.attempts, error: failed.error }))
        return false
      })

    const deliver = (claimed: Claimed) =>
      Effect.flatMap(attempt(claimed), (outcome) => record(claimed, outcome)).pipe(
        Effect.onExit((exit) =>
          Exit.isInterrupted(exit) ? Effect.flatMap(now, (at) => Effect.ignore(repo.release(claimed, at))) : Effect.void
        ),
        Effect.catchAllCause((cause) => Effect.logWarning("a webhook attempt could not be recorded; it is retried once its claim lapses", cause)),
        Effect.annotateLogs({ deliveryId: claimed.id, endpointId: claimed.endpointId }),
        Spans.withSpan("DeliveryWorker.deliver", { attributes: { deliveryId: claimed.id } })
      )

    const running = yield* FiberSet.make<void, never>()
    let working = 0
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        if (!(yield* drain.draining)) return
        yield* Effect.timeoutOption(Effect.interruptible(FiberSet.awaitEmpty(running)), yield* drain.remaining)
      })
    )

    const round = Effect.gen(function*() {
      while (working < config.concurrency && !(yield* drain.draining)) {
        const at = yield* now
        const wanted = Math.min(CLAIM_BATCH, config.concurrency - working)
        const claimed = yield* repo.claim(at, new Date(at.getTime() + leaseMs), wanted)
        for (const delivery of claimed) {
          working += 1
          yield* FiberSet.run(
            running,
            deliver(delivery).pipe(Effect.ensuring(Effect.suspend(() => {
              working -= 1
              return Queue.offer(wake, undefined)
            })))
          )
        }
        if (claimed.length < wanted) return
      }
    })

    yield* repeatRounds("webhook deliveries", round, {
      interval: poll,
      maxBackoff: workerMaxBackoff,
      pause: Effect.race(Queue.take(wake), Effect.sleep(poll))
    }).pipe(Effect.forkScoped)
  })
)
