import { type Duration, Effect, Schedule } from "effect"

/**
 * Renews a lease every `interval` until interrupted (race it with the work the lease covers). The first renewal
 * comes one interval in (`Effect.schedule` waits before each run); a renewal that fails (the database down) is
 * logged as "could not renew `what`" and tried again on the next beat.
 */
export const keepLeased = <E, R>(
  renew: Effect.Effect<unknown, E, R>,
  interval: Duration.DurationInput,
  what: string
): Effect.Effect<never, never, R> =>
  renew.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`could not renew ${what}`, cause)),
    Effect.schedule(Schedule.spaced(interval)),
    Effect.forever
  )
