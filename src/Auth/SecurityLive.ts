import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Duration, Effect, Layer, Option, Redacted } from "effect"
import { AuthLimitsConfig, ClientAddressConfig } from "../Config.ts"
import { Forbidden, RateLimited, Unauthorized } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { clientAddress, clientNetwork, TrustedProxies } from "../Http/ClientAddress.ts"
import { ApiKeys, isApiKey } from "./ApiKeys.ts"
import { ChallengeLimiter } from "./ChallengeLimiter.ts"
import { RateLimiter, type Verdict } from "./RateLimiter.ts"
import { allows } from "./Scopes.ts"
import { Authentication, ChallengeRateLimit, SignInRateLimit } from "./Security.ts"
import { SessionVerifier } from "./SessionVerifier.ts"

/**
 * Bearer tokens: a `cpk_` one is an API key (looked up in PostgreSQL on every request, then held to its scopes for
 * the route being served, `Scopes.ts`), any other a session JWT through whichever SessionVerifier the composition
 * root provides. The framework tries the schemes in turn and answers the last one's failure, so the second scheme
 * decides every token and the first one only takes sessions early.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const sessions = yield* SessionVerifier
    const keys = yield* ApiKeys
    const trusted = new TrustedProxies((yield* ClientAddressConfig).trustedProxies)
    /** A key narrowed to networks is refused from anywhere else, the client found as the sign-in limit finds it. */
    const fromAllowedNetwork = (verified: { readonly session: Session; readonly allowedCidrs: ReadonlyArray<string> }) =>
      verified.allowedCidrs.length === 0 ? Effect.succeed(verified.session) : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const address = clientAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trusted)
        return address !== "unknown" && new TrustedProxies(verified.allowedCidrs).has(address)
          ? Effect.succeed(verified.session)
          : Effect.fail(new Forbidden({ error: "this API key may not be used from this network" }))
      })
    const withinScopes = (session: Session) =>
      Effect.flatMap(Effect.serviceOption(HttpRouter.RouteContext), (context) => {
        const scopes = session.apiKey?.scopes ?? []
        return Option.isSome(context) && allows(scopes, context.value.route.method, context.value.route.path)
          ? Effect.succeed(session)
          : Effect.fail(new Forbidden({ error: "this API key's scopes do not allow this operation" }))
      })
    const anyBearer = (token: string) =>
      isApiKey(token)
        ? keys.verify(token).pipe(Effect.flatMap(fromAllowedNetwork), Effect.flatMap(withinScopes))
        : sessions.verify(token)
    return Authentication.of({
      bearer: (token) => {
        const value = Redacted.value(token)
        return isApiKey(value) ? Effect.fail(new Unauthorized({ error: "not a session token" })) : sessions.verify(value)
      },
      apiKey: (token) => anyBearer(Redacted.value(token))
    })
  })
)

const seconds = (duration: Duration.Duration) => Math.ceil(Duration.toSeconds(duration))

/**
 * Every answer of a limited route says the policy and what is left of it, in the RateLimit-Policy and RateLimit
 * fields of draft-ietf-httpapi-ratelimit-headers (the item syntax of drafts 08 to 11: quota `q`, window `w`,
 * remaining `r`, seconds to reset `t`); a 429 also has Retry-After.
 */
const announce = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

/**
 * A per-client limit as a middleware: the client is an IPv4 address, or an IPv6 network (AUTH_RATE_IPV6_PREFIX), the
 * socket's peer or what trusted proxies (TRUSTED_PROXIES) say in X-Forwarded-For. Should the count fail (the database
 * is down), the request goes through, logged without its stack: in an outage every request would log one.
 */
const perClientLimit = (options: {
  readonly policy: string
  readonly limiter: {
    readonly take: (key: string) => Effect.Effect<Verdict, unknown>
    readonly limit: number
    readonly window: Duration.Duration
  }
  readonly refusal: (retryAfter: number) => string
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
      return yield* new RateLimited({ error: options.refusal(retryAfter) })
    })
  })

/** Sign-in attempts (the token steps) per client across every instance: AUTH_RATE_LIMIT per AUTH_RATE_WINDOW. */
export const SignInRateLimitLive = Layer.effect(
  SignInRateLimit,
  Effect.flatMap(RateLimiter, (limiter) =>
    perClientLimit({
      policy: "sign-in",
      limiter,
      refusal: (retryAfter) => `too many sign-in attempts; try again in ${retryAfter} s`
    }))
)

/**
 * SEP-10 challenges per client across every instance: CHALLENGE_RATE_LIMIT per CHALLENGE_RATE_WINDOW, so that
 * nobody can keep the service signing challenges; counted apart from the sign-in attempts.
 */
export const ChallengeRateLimitLive = Layer.effect(
  ChallengeRateLimit,
  Effect.flatMap(ChallengeLimiter, (limiter) =>
    perClientLimit({
      policy: "challenge",
      limiter,
      refusal: (retryAfter) => `too many SEP-10 challenges; try again in ${retryAfter} s`
    }))
)
