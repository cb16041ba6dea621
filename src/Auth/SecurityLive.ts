import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { RateLimited } from "../Domain/Errors.ts"
import { RateLimiter } from "./RateLimiter.ts"
import { Authentication, SignInRateLimit } from "./Security.ts"
import { Sessions } from "./Sessions.ts"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Sessions, (sessions) =>
    Authentication.of({
      bearer: (token) => sessions.verify(Redacted.value(token))
    }))
).pipe(Layer.provide(Sessions.Default))

export const SignInRateLimitLive = Layer.effect(
  SignInRateLimit,
  Effect.map(RateLimiter, (limiter) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const client = Option.getOrElse(request.remoteAddress, () => "unknown")
      if (!(yield* limiter.take(client))) {
        return yield* new RateLimited({ error: "too many sign-in attempts; try again later" })
      }
    }))
).pipe(Layer.provide(RateLimiter.Default))
