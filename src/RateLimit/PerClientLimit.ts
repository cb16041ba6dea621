import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Duration, Effect, Option } from "effect"
import { AuthLimitsConfig, ClientAddressConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"
import { clientAddress, clientNetwork, TrustedProxies } from "../Http/ClientAddress.ts"
import type { Verdict } from "./RateWindow.ts"

/** What counts a client's requests: `limit` per `window`, one `take` a request (`makeRateWindow` or a service on it). */
export interface Limiter {
  readonly take: (key: string) => Effect.Effect<Verdict, unknown>
  readonly limit: number
  readonly window: Duration.Duration
}

const seconds = (duration: Duration.Duration) => Math.ceil(Duration.toSeconds(duration))

/**
 * Every answer of a limited route says the policy and what is left of it, in the RateLimit-Policy and RateLimit
 * fields of draft-ietf-httpapi-ratelimit-headers (the item syntax of drafts 08 to 11: quota `q`, window `w`,
 * remaining `r`, seconds to reset `t`); a 429 also has Retry-After.
 */
const announce = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

/**
 * A per-client limit as the body of an HttpApiMiddleware (sign-in, SEP-10 challenges, the archive): the client is an
 * IPv4 address, or an IPv6 network (AUTH_RATE_IPV6_PREFIX), the socket's peer or what trusted proxies
 * (TRUSTED_PROXIES) say in X-Forwarded-For, counted under the key `<policy>:<client>`; past the limit, 429 "too many
 * <tooMany>; try again in <n> s". Should the count fail (the database is down), the request goes through, logged
 * without its stack: in an outage every request would log one.
 */
export const perClientLimit = (options: {
  readonly policy: string
  readonly limiter: Limiter
  /** What the client sent too many of, as the 429 names it: `sign-in attempts`. */
  readonly tooMany: string
}) =>
  Effect.gen(function*() {
    const { limiter } = options
    const name = `"${options.policy}"`
    const policy = { "ratelimit-policy": `${name};q=${limiter.limit};w=${Math.max(1, seconds(limiter.window))}` }
    const trusted = new TrustedProxies((yield* ClientAddressConfig).trustedProxies)
    const { ipv6Prefix } = yield* AuthLimitsConfig
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trusted)
      const verdict = yield* limiter.take(`${options.policy}:${clientNetwork(address, ipv6Prefix)}`).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`the ${options.policy} rate limit could not be counted; letting the request through: ${Cause.squash(cause)}`)
            .pipe(Effect.as(undefined))
        )
      )
      if (verdict === undefined) return yield* announce(policy)
      const reset = seconds(verdict.reset)
      const state = { ...policy, ratelimit: `${name};r=${verdict.remaining};t=${reset}` }
      if (verdict._tag === "Allowed") return yield* announce(state)
      const retryAfter = Math.max(1, reset)
      yield* announce({ ...state, "retry-after": String(retryAfter) })
      return yield* new RateLimited({ error: `too many ${options.tooMany}; try again in ${retryAfter} s` })
    })
  })
