import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Duration, Effect, Schedule, Schema } from "effect"
import { AuthLimitsConfig } from "../Config.ts"

const Hit = Schema.Struct({ key: Schema.String, now: Schema.DateFromSelf, until: Schema.DateFromSelf })
const Count = Schema.Struct({ hits: Schema.Number, expiresAt: Schema.DateFromSelf })

/** What is left of the key's window after this request: `remaining` requests, and the time until it ends. */
export type Verdict =
  | { readonly _tag: "Allowed"; readonly remaining: number; readonly reset: Duration.Duration }
  | { readonly _tag: "Limited"; readonly remaining: 0; readonly reset: Duration.Duration }

/**
 * A fixed-window counter per key, kept in PostgreSQL so that every instance counts against one limit. A window opens
 * at a key's first request and lasts AUTH_RATE_WINDOW; times come from the service's clock.
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("Auth/RateLimiter", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { requests, window } = yield* AuthLimitsConfig
    const windowMs = Duration.toMillis(window)

    // One statement: concurrent requests on any instance serialize on the key's row. A window that ended (or lies
    // ahead, after the clock moved back) starts over.
    const count = SqlSchema.single({
      Request: Hit,
      Result: Count,
      execute: ({ key, now, until }) => sql`
        INSERT INTO rate_limits AS r (key, window_start, expires_at, hits)
        VALUES (${key}, ${now}, ${until}, 1)
        ON CONFLICT (key) DO UPDATE SET
          window_start = CASE WHEN r.expires_at <= excluded.window_start OR r.window_start > excluded.window_start
            THEN excluded.window_start ELSE r.window_start END,
          expires_at = CASE WHEN r.expires_at <= excluded.window_start OR r.window_start > excluded.window_start
            THEN excluded.expires_at ELSE r.expires_at END,
          hits = CASE WHEN r.expires_at <= excluded.window_start OR r.window_start > excluded.window_start
            THEN 1 ELSE r.hits + 1 END
        RETURNING hits, expires_at`
    })

    /** Counts one request under `key`: whether it is within the limit, what is left and when the window ends. */
    const take = Effect.fn("RateLimiter.take")(function*(key: string) {
      const now = yield* Clock.currentTimeMillis
      const { expiresAt, hits } = yield* count({ key, now: new Date(now), until: new Date(now + windowMs) })
      const reset = Duration.millis(Math.max(0, expiresAt.getTime() - now))
      const verdict: Verdict = hits <= requests
        ? { _tag: "Allowed", remaining: requests - hits, reset }
        : { _tag: "Limited", remaining: 0, reset }
      return verdict
    })

    const sweep = Effect.gen(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      yield* sql`DELETE FROM rate_limits WHERE expires_at < ${now}`
    }).pipe(Effect.catchAllCause((cause) => Effect.logDebug("could not sweep expired rate-limit windows", cause)))

    yield* sweep.pipe(
      Effect.schedule(Schedule.spaced(Duration.clamp(window, { minimum: "10 seconds", maximum: "10 minutes" }))),
      Effect.forkScoped
    )

    return { take, limit: requests, window } as const
  })
}) {}
