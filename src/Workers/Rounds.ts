import { Cause, Duration, Effect, Exit, Predicate } from "effect"
import { isConnectionError } from "../Sql/Errors.ts"

export interface RoundOptions {
  /** Pause after a round that succeeded. */
  readonly interval: Duration.DurationInput
  /** The longest pause after failed rounds: the pause doubles from `interval` per failure, up to this. */
  readonly maxBackoff: Duration.DurationInput
  /** Waits between successful rounds instead of sleeping `interval` (e.g. until woken or `interval` passed). */
  readonly pause?: Effect.Effect<void> | undefined
  /** Sees every round's outcome (metrics). */
  readonly onRound?: ((ok: boolean) => Effect.Effect<void>) | undefined
}

/** The pause after the `failures`-th failed round in a row. */
export const backoff = (failures: number, options: RoundOptions): Duration.Duration => {
  const base = Duration.toMillis(options.interval)
  const cap = Duration.toMillis(options.maxBackoff)
  return Duration.millis(Math.min(cap, base * 2 ** Math.min(failures - 1, 30)))
}

/**
 * The failure is the database being down (a typed `ServiceUnavailable`, or a connection-class SqlError as a failure
 * or a defect): the work can be retried.
 */
export const databaseUnavailable = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((e) => Predicate.isTagged(e, "ServiceUnavailable") || isConnectionError(e))

const failedBecause = (cause: Cause.Cause<unknown>) => databaseUnavailable(cause) ? "database unavailable" : "failed"

/**
 * Runs `round` for as long as the scope lives. A failed round (a typed error or a defect: the database down, a bug)
 * never ends the loop: it is logged and the next round comes after a bounded backoff, so a background worker comes
 * back by itself when PostgreSQL does. Everything a round holds (claims, slots) must be given back by the round.
 */
export const repeatRounds = <E, R>(name: string, round: Effect.Effect<void, E, R>, options: RoundOptions) =>
  Effect.gen(function*() {
    let failures = 0
    for (;;) {
      const exit = yield* Effect.exit(round)
      if (options.onRound !== undefined) yield* options.onRound(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) {
        if (failures > 0) yield* Effect.logInfo(`${name} recovered after ${failures} failed rounds`)
        failures = 0
        yield* options.pause ?? Effect.sleep(options.interval)
        continue
      }
      failures += 1
      const delay = backoff(failures, options)
      const message = `${name} round ${failedBecause(exit.cause)} (${failures} in a row); next in ${Duration.format(delay)}`
      yield* failures === 1 ? Effect.logWarning(message, exit.cause) : Effect.logWarning(message)
      yield* Effect.sleep(delay)
    }
  }).pipe(Effect.annotateLogs({ worker: name }))
