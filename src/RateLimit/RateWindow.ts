import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Duration, Effect, Schema } from "effect"

const Hit = Schema.Struct({ key: Schema.String, now: Schema.DateFromSelf, until: Schema.DateFromSelf })
const Count = Schema.Struct({ hits: Schema.Number, expiresAt: Schema.DateFromSelf })

/** What is left of the key's window after this request: `remaining` requests, and the time until it ends. */
export type Verdict =
  | { readonly _tag: "Allowed"; readonly remaining: number; readonly reset: Duration.Duration }
  | { readonly _tag: "Limited"; readonly remaining: 0; readonly reset: Duration.Duration }

/**
 * A fixed-window counter per key in the shared `rate_limits` table (unlogged: migration 0017), so that every instance
 * counts against one limit: `requests` per `window`, a window opening at a key's first request. Times come from the
 * service's clock. Every limit of the service (sign-in, SEP-10 challenges, the archive) counts through this, under its
 * own key prefix.
 */
export const makeRateWindow = (requests: number, window: Duration.Duration) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
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
    const take = (key: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const { expiresAt, hits } = yield* count({ key, now: new Date(now), until: new Date(now + windowMs) })
        const reset = Duration.millis(Math.max(0, expiresAt.getTime() - now))
        const verdict: Verdict = hits <= requests
          ? { _tag: "Allowed", remaining: requests - hits, reset }
          : { _tag: "Limited", remaining: 0, reset }
        return verdict
      })

    return { take, limit: requests, window } as const
  })
