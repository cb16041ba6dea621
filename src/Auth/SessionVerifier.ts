import { Clock, DateTime, Effect, Layer, Redacted, Schema } from "effect"
import { errors as joseErrors, jwtVerify, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import { ServerConfig } from "../Config.ts"
import { Unauthorized } from "../Domain/Errors.ts"
import { type Session, SessionToken, SignInMethod } from "../Domain/Session.ts"
import { OperationalKeys } from "./Keys.ts"
import * as Spans from "../Observability/Spans.ts"

export const SESSION_TTL_SECONDS = 60 * 60

/** Verified sessions kept per instance (a few MiB at most). */
const VERIFIED_KEPT = 10_000

const Claims = Schema.Struct({
  sub: Schema.NonEmptyString,
  jti: Schema.NonEmptyString,
  iat: Schema.Number,
  exp: Schema.Number,
  method: SignInMethod,
  email: Schema.optional(Schema.String)
})

const unauthorized = (error: string) => new Unauthorized({ error })

/** Issues and verifies HS256 session JWTs with `secret`, naming `issuer` as their `iss`. */
export const makeSessionVerifier = (secret: Uint8Array, issuer: string) => {
  const issue = Spans.fn("SessionVerifier.issue")(function*(sub: string, method: SignInMethod, email?: string) {
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const exp = now + SESSION_TTL_SECONDS
    const token = yield* Effect.promise(() =>
      new SignJWT(email === undefined ? { method } : { method, email })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setIssuer(issuer)
        .setSubject(sub)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(secret)
    )
    return new SessionToken({ token, expiresAt: DateTime.unsafeMake(exp * 1000) })
  })

  /**
   * Sessions already verified, by their exact token: a client sends the same token with every request, and its
   * signature check (WebCrypto, off the event loop) and claims decoding need not run again. Only tokens that
   * verified are kept, at most VERIFIED_KEPT (the oldest go first), and each is still refused once it expires.
   * Sessions cannot be revoked before they expire, so a kept one can never become invalid in another way.
   */
  const verified = new Map<string, Session>()

  /** A bearer token into its verified session; 401 when missing, malformed, forged or expired. */
  const verify = Spans.fn("SessionVerifier.verify")(function*(token: string) {
    if (token.length === 0) return yield* unauthorized("missing bearer token")
    const now = yield* Clock.currentTimeMillis
    const known = verified.get(token)
    if (known !== undefined) {
      if (known.expiresAt.getTime() > now) return known
      verified.delete(token)
      return yield* unauthorized("session expired")
    }
    const { payload } = yield* Effect.tryPromise({
      try: () => jwtVerify(token, secret, { algorithms: ["HS256"], issuer, currentDate: new Date(now) }),
      catch: (e) => unauthorized(e instanceof joseErrors.JWTExpired ? "session expired" : "invalid session token")
    })
    const claims = yield* Schema.decodeUnknown(Claims)(payload).pipe(
      Effect.mapError(() => unauthorized("invalid session token"))
    )
    const session: Session = {
      sub: claims.sub,
      method: claims.method,
      jti: claims.jti,
      expiresAt: new Date(claims.exp * 1000),
      email: claims.email
    }
    if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value ?? token)
    verified.set(token, session)
    return session
  })

  return { issue, verify } as const
}

/** The service's sessions: JWT_SECRET-keyed tokens issued by PUBLIC_URL. */
export class SessionVerifier extends Effect.Service<SessionVerifier>()("Auth/SessionVerifier", {
  effect: Effect.gen(function*() {
    const { publicUrl } = yield* ServerConfig
    const keys = yield* OperationalKeys
    return makeSessionVerifier(Redacted.value(keys.jwtSecret), publicUrl)
  }),
  dependencies: [OperationalKeys.Default]
}) {
  /** Sessions keyed with a fixed secret, for tests. */
  static layerTest = (secret: string, issuer = "http://payroll.test") =>
    Layer.succeed(SessionVerifier, SessionVerifier.make(makeSessionVerifier(new TextEncoder().encode(secret), issuer)))
}
