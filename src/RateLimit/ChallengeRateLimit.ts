import { HttpApiMiddleware } from "@effect/platform"
import { RateLimited } from "../Domain/Errors.ts"

/** Per client address limit on the SEP-10 challenges, counted across every instance (429 with Retry-After). */
export class ChallengeRateLimit extends HttpApiMiddleware.Tag<ChallengeRateLimit>()("RateLimit/ChallengeRateLimit", {
  failure: RateLimited
}) {}
