import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, ServiceUnavailable, Unauthorized } from "../Domain/Errors.ts"
import { CurrentSession } from "../Domain/Session.ts"

const session = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotate(OpenApi.Format, "JWT"),
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "A session token (HS256 JWT, one hour) from a sign-in: SEP-10 (POST /auth/sep10/verify) or email (POST /auth/privy)"
  )
)

const apiKey = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotate(OpenApi.Format, "cpk_"),
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An organization's API key (`cpk_...`, from POST /api-keys): acts as the employer who created it, within its " +
      "scopes; other operations answer 403"
  )
)

/**
 * Bearer session JWT or API key (told apart by the key's `cpk_` prefix); provides the verified session to handlers.
 * An API key outside its scopes is 403 (`Scopes.ts`); looking a key up needs the database (503 while it is down).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Auth/Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden, ServiceUnavailable),
  provides: CurrentSession,
  security: { bearer: session, apiKey }
}) {}
