import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { RateLimited, Unauthorized } from "../Domain/Errors.ts"
import { CurrentSession } from "../Domain/Session.ts"

/** Bearer session JWT; provides the verified session to handlers. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Auth/Authentication", {
  failure: Unauthorized,
  provides: CurrentSession,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** Per client address limit on the sign-in routes, counted across every instance (429 with Retry-After). */
export class SignInRateLimit extends HttpApiMiddleware.Tag<SignInRateLimit>()("Auth/SignInRateLimit", {
  failure: RateLimited
}) {}
