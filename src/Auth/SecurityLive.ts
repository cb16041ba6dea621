import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { AuthLimitsConfig, ClientAddressConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"
import { clientAddress, clientNetwork, TrustedProxies } from "../Http/ClientAddress.ts"
import { RateLimiter } from "./RateLimiter.ts"
import { Authentication, SignInRateLimit } from "./Security.ts"
import { SessionVerifier } from "./SessionVerifier.ts"

/** Bearer tokens go through whichever SessionVerifier the composition root provides. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(SessionVerifier, (sessions) =>
    Authentication.of({
      bearer: (token) => sessions.verify(Redacted.value(token))
    }))
)

/** The 429 tells the client when its window ends. */
const retryAfter = (wait: Duration.Duration) => {
  const seconds = String(Math.max(1, Math.ceil(Duration.toSeconds(wait))))
  return HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(response.status === 429 ? HttpServerResponse.setHeader(response, "retry-after", seconds) : response)
  ).pipe(Effect.as(seconds))
}

/**
 * Sign-in attempts per client across every instance: an IPv4 address, or an IPv6 network (AUTH_RATE_IPV6_PREFIX).
 * The address is the socket's peer, or what trusted proxies (TRUSTED_PROXIES) say in X-Forwarded-For. Should the
 * database fail, the attempt goes through: the sign-in itself needs the database and answers for it.
 */
export const SignInRateLimitLive = Layer.effect(
  SignInRateLimit,
  Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const trusted = new TrustedProxies((yield* ClientAddressConfig).trustedProxies)
    const { ipv6Prefix } = yield* AuthLimitsConfig
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trusted)
      const client = clientNetwork(address, ipv6Prefix)
      const verdict = yield* limiter.take(`sign-in:${client}`).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning("the sign-in rate limit could not be counted; letting the attempt through", cause).pipe(
            Effect.as({ _tag: "Allowed" } as const)
          )
        )
      )
      if (verdict._tag === "Limited") {
        const seconds = yield* retryAfter(verdict.retryAfter)
        return yield* new RateLimited({ error: `too many sign-in attempts; try again in ${seconds} s` })
      }
    })
  })
)
