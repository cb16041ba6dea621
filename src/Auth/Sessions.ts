import { Clock, DateTime, Effect, Redacted, Schema } from "effect"
import { errors as joseErrors, jwtVerify, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import { ServerConfig } from "../Config.ts"
import { Unauthorized } from "../Domain/Errors.ts"
import { type Session, SessionToken, SignInMethod } from "../Domain/Session.ts"
import { OperationalKeys } from "./Keys.ts"

export const SESSION_TTL_SECONDS = 60 * 60

const Claims = Schema.Struct({
  sub: Schema.NonEmptyString,
  jti: Schema.NonEmptyString,
  iat: Schema.Number,
  exp: Schema.Number,
  method: SignInMethod,
  email: Schema.optional(Schema.String)
})

const unauthorized = (error: string) => new Unauthorized({ error })

/** Issues and verifies the service's HS256 session JWTs. */
export class Sessions extends Effect.Service<Sessions>()("Auth/Sessions", {
  effect: Effect.gen(function*() {
    const { publicUrl } = yield* ServerConfig
    const keys = yield* OperationalKeys
    const secret = Redacted.value(keys.jwtSecret)

    const issue = Effect.fn("Sessions.issue")(function*(sub: string, method: SignInMethod, email?: string) {
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const exp = now + SESSION_TTL_SECONDS
      const token = yield* Effect.promise(() =>
        new SignJWT(email === undefined ? { method } : { method, email })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setIssuer(publicUrl)
          .setSubject(sub)
          .setIssuedAt(now)
          .setExpirationTime(exp)
          .setJti(randomUUID())
          .sign(secret)
      )
      return new SessionToken({ token, expiresAt: DateTime.unsafeMake(exp * 1000) })
    })

    const verify = Effect.fn("Sessions.verify")(function*(token: string) {
      if (token.length === 0) return yield* unauthorized("missing bearer token")
      const now = yield* Clock.currentTimeMillis
      const { payload } = yield* Effect.tryPromise({
        try: () => jwtVerify(token, secret, { algorithms: ["HS256"], issuer: publicUrl, currentDate: new Date(now) }),
        catch: (e) => unauthorized(e instanceof joseErrors.JWTExpired ? "session expired" : "invalid session token")
      })
      const claims = yield* Schema.decodeUnknown(Claims)(payload).pipe(
        Effect.mapError(() => unauthorized("invalid session token"))
      )
      return {
        sub: claims.sub,
        method: claims.method,
        jti: claims.jti,
        expiresAt: new Date(claims.exp * 1000),
        email: claims.email
      } satisfies Session
    })

    return { issue, verify } as const
  }),
  dependencies: [OperationalKeys.Default]
}) {}
