import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Schedule } from "effect"
import { AuthLimitsConfig } from "../Config.ts"
import { makeRateWindow } from "./RateWindow.ts"
import * as Spans from "../Observability/Spans.ts"

export type { Verdict } from "./RateWindow.ts"

/**
 * A fixed-window counter per key, kept in PostgreSQL so that every instance counts against one limit. A window opens
 * at a key's first request and lasts AUTH_RATE_WINDOW; times come from the service's clock. Its sweep deletes the
 * ended windows of every limit in `rate_limits` (the challenges' and the archive's too).
 */
export class SignInLimiter extends Effect.Service<SignInLimiter>()("RateLimit/SignInLimiter", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { requests, window } = yield* AuthLimitsConfig
    const counter = yield* makeRateWindow(requests, window)
    const take = (key: string) => counter.take(key).pipe(Spans.withSpan("SignInLimiter.take"))

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
