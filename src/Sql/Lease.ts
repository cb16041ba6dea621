import { type Duration, Effect, Schedule } from "effect"

/**
 * Renews a lease every `interval` until interrupted (race it with the work the lease covers). The first renewal
 * comes one interval in (`Effect.schedule` waits before each run); a renewal that fails (the database down) is
 * logged as "could not renew `what`" and tried again on the next beat.
 *
 * A renewal under way is finished, not interrupted, when the work ends: interrupting a statement makes the pg client
 * send `pg_cancel_backend` for its connection, and when the statement ends first and the connection goes back to the
 * pool, the cancel lands on whatever statement the next borrower runs there ("canceling statement due to user
 * request": a 500 for an unrelated request, seen once in CI with 200 concurrent transfers). Repository statements
 * outside a transaction also run again once when a stray cancel reaches them (`retryStrayCancel`, src/Sql/Errors.ts).
 */
export const keepLeased = <E, R>(
  renew: Effect.Effect<unknown, E, R>,
  interval: Duration.DurationInput,
  what: string
): Effect.Effect<never, never, R> =>
  renew.pipe(
    Effect.uninterruptible,
    Effect.catchAllCause((cause) => Effect.logWarning(`could not renew ${what}`, cause)),
    Effect.schedule(Schedule.spaced(interval)),
    Effect.forever
  )
