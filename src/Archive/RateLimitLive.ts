import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Duration, Effect, Layer, Option } from "effect"
import { AuthLimitsConfig, ClientAddressConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"
import { clientAddress, clientNetwork, TrustedProxies } from "../Http/ClientAddress.ts"
import { makeRateWindow } from "../Sql/RateWindow.ts"
import { ArchiveConfig } from "./Config.ts"
import { ArchiveRateLimit } from "./RateLimit.ts"

const POLICY = "\"archive\""

/**
 * A fixed window per client through the shared counter (`src/Sql/RateWindow.ts`, keys `archive:<client>`, beside the
 * sign-in ones and swept with them): one atomic upsert per request, so every instance counts against one limit. The answer carries
 * RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers), a 429 also Retry-After. Should the database
 * fail, the request goes through: the archive's answer needs the database and says so itself (503).
 */
export const ArchiveRateLimitLive = Layer.effect(
  ArchiveRateLimit,
  Effect.gen(function*() {
    const { rateLimit, rateWindow } = yield* ArchiveConfig
    const { ipv6Prefix } = yield* AuthLimitsConfig
    const trusted = new TrustedProxies((yield* ClientAddressConfig).trustedProxies)
    const windowMs = Duration.toMillis(rateWindow)
    const policy = { "ratelimit-policy": `${POLICY};q=${rateLimit};w=${Math.max(1, Math.ceil(windowMs / 1000))}` }

    const counter = yield* makeRateWindow(rateLimit, rateWindow)

    const announce = (headers: Record<string, string>) =>
      HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trusted)
      const counted = yield* counter.take(`archive:${clientNetwork(address, ipv6Prefix)}`).pipe(
        Effect.map(Option.some),
        // Logged without its stack: during an outage every archive request would otherwise log one.
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`the archive's rate limit could not be counted; letting the request through: ${Cause.squash(cause)}`).pipe(
            Effect.as(Option.none())
          )
        )
      )
      if (Option.isNone(counted)) return yield* announce(policy)
      const verdict = counted.value
      const reset = Math.ceil(Duration.toMillis(verdict.reset) / 1000)
      const state = { ...policy, ratelimit: `${POLICY};r=${verdict.remaining};t=${reset}` }
      if (verdict._tag === "Allowed") return yield* announce(state)
      const retryAfter = Math.max(1, reset)
      yield* announce({ ...state, "retry-after": String(retryAfter) })
      return yield* new RateLimited({ error: `too many archive requests; try again in ${retryAfter} s` })
    })
  })
)
