import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Duration, Effect, Layer, Option, Schema } from "effect"
import { AuthLimitsConfig, ClientAddressConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"
import { clientAddress, clientNetwork, TrustedProxies } from "../Http/ClientAddress.ts"
import { ArchiveConfig } from "./Config.ts"
import { ArchiveRateLimit } from "./RateLimit.ts"

const Hit = Schema.Struct({ key: Schema.String, now: Schema.DateFromSelf, until: Schema.DateFromSelf })
const Count = Schema.Struct({ hits: Schema.Number, expiresAt: Schema.DateFromSelf })

const POLICY = "\"archive\""

/**
 * A fixed window per client in the shared `rate_limits` table (keys `archive:<client>`, beside the sign-in ones and
 * swept with them): one atomic upsert per request, so every instance counts against one limit. The answer carries
 * RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers), a 429 also Retry-After. Should the database
 * fail, the request goes through: the archive's answer needs the database and says so itself (503).
 */
export const ArchiveRateLimitLive = Layer.effect(
  ArchiveRateLimit,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { rateLimit, rateWindow } = yield* ArchiveConfig
    const { ipv6Prefix } = yield* AuthLimitsConfig
    const trusted = new TrustedProxies((yield* ClientAddressConfig).trustedProxies)
    const windowMs = Duration.toMillis(rateWindow)
    const policy = { "ratelimit-policy": `${POLICY};q=${rateLimit};w=${Math.max(1, Math.ceil(windowMs / 1000))}` }

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

    const announce = (headers: Record<string, string>) =>
      HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trusted)
      const now = yield* Clock.currentTimeMillis
      const counted = yield* count({ key: `archive:${clientNetwork(address, ipv6Prefix)}`, now: new Date(now), until: new Date(now + windowMs) })
        .pipe(
          Effect.map(Option.some),
          Effect.catchAllCause((cause) =>
            Effect.logWarning("the archive's rate limit could not be counted; letting the request through", cause).pipe(
              Effect.as(Option.none())
            )
          )
        )
      if (Option.isNone(counted)) return yield* announce(policy)
      const reset = Math.max(0, Math.ceil((counted.value.expiresAt.getTime() - now) / 1000))
      const remaining = Math.max(0, rateLimit - counted.value.hits)
      const state = { ...policy, ratelimit: `${POLICY};r=${remaining};t=${reset}` }
      if (counted.value.hits <= rateLimit) return yield* announce(state)
      const retryAfter = Math.max(1, reset)
      yield* announce({ ...state, "retry-after": String(retryAfter) })
      return yield* new RateLimited({ error: `too many archive requests; try again in ${retryAfter} s` })
    })
  })
)
