import { HttpApiMiddleware } from "@effect/platform"
import { RateLimited } from "../Domain/Errors.ts"

/** Per client address limit on the sign-in routes, counted across every instance (429 with Retry-After). */
export class SignInRateLimit extends HttpApiMiddleware.Tag<SignInRateLimit>()("RateLimit/SignInRateLimit", {
  failure: RateLimited
}) {}
