import { Clock, Deferred, Duration, Effect, Option, Ref, Schedule } from "effect"
import { initialLedgerState, missed, nextLook, observe } from "./LedgerState.ts"

/**
 * The instance's ledger watcher. `look` runs a waiter's check when its next ledger is due, and lets only one waiter
 * look while the ledger is overdue (the others wait for that look's answer); `schedule` is the polling schedule whose
 * delays follow the prediction. Answers are fed in with `observe`.
 */
export const makeLedgerClock = Effect.gen(function*() {
  const state = yield* Ref.make(initialLedgerState)
  const probe = yield* Ref.make(Option.none<Deferred.Deferred<void>>())

  /** Feeds in an answer's `latestLedger` and `latestLedgerCloseTime` for a request sent at `sentAt`. */
  const observeAnswer = (ledger: number, closeTime: number, sentAt: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(state, (s) => observe(s, ledger, closeTime, sentAt, now)))

  const latest = Effect.map(Ref.get(state), (s) => s.latest)

  /** How long a waiter that last saw `seen` waits before its next look. */
  const delayAfter = (seen: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return Duration.millis(Math.max(0, nextLook(yield* Ref.get(state), seen, now) - now))
    })

  /** Runs `check` if a ledger after `seen` is known or due and nobody else is looking for it; otherwise none. */
  const look = <A, E, R>(seen: number, check: Effect.Effect<A, E, R>): Effect.Effect<Option.Option<A>, E, R> =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const known = yield* Ref.get(state)
      if (known.latest > seen) return Option.some(yield* check)
      if (nextLook(known, seen, now) > now) return Option.none()
      const mine = yield* Deferred.make<void>()
      const running = yield* Ref.modify(probe, (current): [Option.Option<Deferred.Deferred<void>>, Option.Option<Deferred.Deferred<void>>] =>
        Option.isSome(current) ? [current, current] : [Option.none(), Option.some(mine)])
      if (Option.isSome(running)) {
        yield* Deferred.await(running.value)
        return (yield* latest) > seen ? Option.some(yield* check) : Option.none()
      }
      return yield* check.pipe(
        Effect.map(Option.some),
        Effect.ensuring(
          Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.update(state, (s) => missed(s, seen, at))).pipe(
            Effect.zipRight(Ref.set(probe, Option.none())),
            Effect.zipRight(Deferred.succeed(mine, undefined))
          )
        )
      )
    })

  /**
   * Polling: after each failed look, the delay follows the prediction for the ledger after the one the waiter last
   * saw (`seen`), at least `pause(input)`, and never past `until`.
   */
  const schedule = <In>(seen: Effect.Effect<number>, until: number, pause: (input: In) => Duration.Duration) =>
    Schedule.identity<In>().pipe(
      Schedule.addDelayEffect((input) =>
        Effect.gen(function*() {
          const delay = Duration.max(yield* delayAfter(yield* seen), pause(input))
          const left = until - (yield* Clock.currentTimeMillis)
          return Duration.min(delay, Duration.millis(Math.max(0, left)))
        })
      ),
      Schedule.checkEffect(() => Effect.map(Clock.currentTimeMillis, (now) => now < until))
    )

  return { observe: observeAnswer, latest, look, schedule } as const
})

export type LedgerClock = Effect.Effect.Success<typeof makeLedgerClock>
