import { type Config, type Duration, Effect, Layer } from "effect"
import { ArchiveRateLimit } from "./ArchiveRateLimit.ts"
import { ChallengeLimiter } from "./ChallengeLimiter.ts"
import { ChallengeRateLimit } from "./ChallengeRateLimit.ts"
import { perClientLimit } from "./PerClientLimit.ts"
import { makeRateWindow } from "./RateWindow.ts"
import { SignInLimiter } from "./SignInLimiter.ts"
import { SignInRateLimit } from "./SignInRateLimit.ts"

/** Sign-in attempts (the token steps) per client across every instance: AUTH_RATE_LIMIT per AUTH_RATE_WINDOW. */
export const SignInRateLimitLive = Layer.effect(
  SignInRateLimit,
  Effect.flatMap(SignInLimiter, (limiter) =>
    perClientLimit({ policy: "sign-in", limiter, tooMany: "sign-in attempts" }))
)

/**
 * SEP-10 challenges per client across every instance: CHALLENGE_RATE_LIMIT per CHALLENGE_RATE_WINDOW, so that
 * nobody can keep the service signing challenges; counted apart from the sign-in attempts.
 */
export const ChallengeRateLimitLive = Layer.effect(
  ChallengeRateLimit,
  Effect.flatMap(ChallengeLimiter, (limiter) =>
    perClientLimit({ policy: "challenge", limiter, tooMany: "SEP-10 challenges" }))
)

/** Requests per client per window on the archive's routes: ARCHIVE_RATE_LIMIT and ARCHIVE_RATE_WINDOW. */
export interface ArchiveLimits {
  readonly rateLimit: number
  readonly rateWindow: Duration.Duration
}

/**
 * The archive's routes per client across every instance, counted under `archive:<client>` beside the sign-in keys
 * and swept with them. Should the database fail, the request goes through: the archive's answer needs the database
 * and says so itself (503). The limits are the archive's settings, handed in by the archive's layer
 * (`src/Archive/Live.ts`): infrastructure imports no feature.
 */
export const ArchiveRateLimitLive = (limits: Config.Config<ArchiveLimits>) => Layer.effect(
  ArchiveRateLimit,
  Effect.gen(function*() {
    const { rateLimit, rateWindow } = yield* limits
    const limiter = yield* makeRateWindow(rateLimit, rateWindow)
    return yield* perClientLimit({ policy: "archive", limiter, tooMany: "archive requests" })
  })
)
