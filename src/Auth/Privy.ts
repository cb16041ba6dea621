import { Clock, Data, Effect, Either, Option, Redacted, Schema } from "effect"
import { createRemoteJWKSet, errors as joseErrors, importSPKI, type JWTVerifyGetKey, jwtVerify } from "jose"
import { PrivyConfig } from "../Config.ts"
import { NotImplemented, Unauthorized } from "../Domain/Errors.ts"
import { SessionVerifier } from "./SessionVerifier.ts"
import * as Spans from "../Observability/Spans.ts"

const unauthorized = (error: string) => new Unauthorized({ error })

/** The configured Privy key cannot be read: the service does not start. */
class PrivyKeyInvalid extends Data.TaggedError("PrivyKeyInvalid")<{ readonly message: string }> {}

const LinkedAccounts = Schema.Array(Schema.Unknown)
const EmailAccount = Schema.Struct({ type: Schema.Literal("email"), address: Schema.String, verified_at: Schema.Number })

/**
 * The first verified email among a Privy identity token's `linked_accounts` (a JSON string of linked accounts,
 * each `{type: "email", address, verified_at, ...}` for an email; an array is accepted too).
 */
const verifiedEmail = (claim: unknown): Option.Option<string> => {
  const raw = typeof claim === "string" ? Either.getOrUndefined(Either.try(() => JSON.parse(claim) as unknown)) : claim
  const accounts = Schema.decodeUnknownOption(LinkedAccounts)(raw)
  return Option.flatMap(accounts, (list) =>
    Option.firstSomeOf(list.map((account) => Schema.decodeUnknownOption(EmailAccount)(account))).pipe(
      Option.map((email) => email.address.trim().toLowerCase())
    ))
}

/** Email sign-in: verifies a Privy access token (ES256, issuer privy.io, audience the app id). */
export class Privy extends Effect.Service<Privy>()("Auth/Privy", {
  effect: Effect.gen(function*() {
    const config = yield* PrivyConfig
    const sessions = yield* SessionVerifier

    const key: Option.Option<JWTVerifyGetKey> = yield* Option.match(config.verificationKey, {
      onSome: (pem) =>
        Effect.tryPromise(() => importSPKI(Redacted.value(pem).replace(/\\n/g, "\n"), "ES256")).pipe(
          Effect.map((k) => Option.some<JWTVerifyGetKey>(() => k)),
          Effect.orDieWith(() => new PrivyKeyInvalid({ message: "PRIVY_VERIFICATION_KEY is not an ES256 public key in PEM (SPKI) form" }))
        ),
      onNone: () =>
        Effect.succeed(Option.map(config.jwksUrl, (url): JWTVerifyGetKey => createRemoteJWKSet(new URL(url))))
    })
    const verifier = Option.flatMap(config.appId, (appId) => Option.map(key, (k) => ({ appId, key: k })))

    const verify = (token: string, what: string) =>
      Effect.gen(function*() {
        if (Option.isNone(verifier)) {
          return yield* new NotImplemented({ error: "email sign-in is not configured on this service" })
        }
        const { appId, key } = verifier.value
        const now = yield* Clock.currentTimeMillis
        const { payload } = yield* Effect.tryPromise({
          try: () => jwtVerify(token, key, { algorithms: ["ES256"], issuer: "privy.io", audience: appId, currentDate: new Date(now) }),
          catch: (e) => unauthorized(e instanceof joseErrors.JWTExpired ? `Privy ${what} expired` : `invalid Privy ${what}`)
        })
        if (typeof payload.sub !== "string" || payload.sub.length === 0) return yield* unauthorized(`invalid Privy ${what}`)
        return { sub: payload.sub, linkedAccounts: payload["linked_accounts"] }
      })

    /** Signs in with a Privy access token; an identity token of the same user adds its verified email. */
    const signIn = Spans.fn("Privy.signIn")(function*(token: string, identityToken?: string) {
      const access = yield* verify(token, "token")
      if (identityToken === undefined) return yield* sessions.issue(access.sub, "privy")
      const identity = yield* verify(identityToken, "identity token")
      if (identity.sub !== access.sub) return yield* unauthorized("the identity token is of another user")
      return yield* sessions.issue(access.sub, "privy", Option.getOrUndefined(verifiedEmail(identity.linkedAccounts)))
    })

    return { signIn } as const
  }),
  dependencies: [SessionVerifier.Default]
}) {}
