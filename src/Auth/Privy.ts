import { Clock, Effect, Option, Redacted } from "effect"
import { createRemoteJWKSet, errors as joseErrors, importSPKI, type JWTVerifyGetKey, jwtVerify } from "jose"
import { PrivyConfig } from "../Config.ts"
import { NotImplemented, Unauthorized } from "../Domain/Errors.ts"
import { Sessions } from "./Sessions.ts"

const unauthorized = (error: string) => new Unauthorized({ error })

/** Email sign-in: verifies a Privy access token (ES256, issuer privy.io, audience the app id). */
export class Privy extends Effect.Service<Privy>()("Auth/Privy", {
  effect: Effect.gen(function*() {
    const config = yield* PrivyConfig
    const sessions = yield* Sessions

    const key: Option.Option<JWTVerifyGetKey> = yield* Option.match(config.verificationKey, {
      onSome: (pem) =>
        Effect.tryPromise(() => importSPKI(Redacted.value(pem).replace(/\\n/g, "\n"), "ES256")).pipe(
          Effect.map((k) => Option.some<JWTVerifyGetKey>(() => k)),
          Effect.orDieWith(() => new Error("PRIVY_VERIFICATION_KEY is not an ES256 public key in PEM (SPKI) form"))
        ),
      onNone: () =>
        Effect.succeed(Option.map(config.jwksUrl, (url): JWTVerifyGetKey => createRemoteJWKSet(new URL(url))))
    })
    const verifier = Option.flatMap(config.appId, (appId) => Option.map(key, (k) => ({ appId, key: k })))

    const signIn = Effect.fn("Privy.signIn")(function*(token: string) {
      if (Option.isNone(verifier)) {
        return yield* new NotImplemented({ error: "email sign-in is not configured on this service" })
      }
      const { appId, key } = verifier.value
      const now = yield* Clock.currentTimeMillis
      const { payload } = yield* Effect.tryPromise({
        try: () =>
          jwtVerify(token, key, {
            algorithms: ["ES256"],
            issuer: "privy.io",
            audience: appId,
            currentDate: new Date(now)
          }),
        catch: (e) => unauthorized(e instanceof joseErrors.JWTExpired ? "Privy token expired" : "invalid Privy token")
      })
      if (typeof payload.sub !== "string" || payload.sub.length === 0) {
        return yield* unauthorized("invalid Privy token")
      }
      return yield* sessions.issue(payload.sub, "privy")
    })

    return { signIn } as const
  }),
  dependencies: [Sessions.Default]
}) {}
