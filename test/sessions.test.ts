import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { generateKeyPair, SignJWT } from "jose"
import { call, signIn } from "./support/Client.ts"
import { PRIVY_APP, privyConfig, privyPem, privyToken } from "./support/Privy.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

const strangerKeys = await generateKeyPair("ES256")

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const me = (token: string) => Effect.flatMap(TestApp, (app) => call(app, "GET", "/me", { token }))

layer(TestAppLive(privyConfig))("session tokens", (it) => {
  it.effect("a session JWT carries iss, sub, iat, exp (1 hour), jti and the sign-in method", () =>
    Effect.gen(function*() {
      const token = yield* signIn(yield* TestApp)
      const [header, payload] = token.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url").toString()))
      expect(header).toEqual({ alg: "HS256", typ: "JWT" })
      expect(payload).toMatchObject({ iss: "http://payroll.test", method: "sep10" })
      expect(payload.exp - payload.iat).toBe(3600)
      expect(typeof payload.jti).toBe("string")
      expect((yield* me(token)).status).toBe(200)
    }))

  it.effect("a token signed with another key is 401", () =>
    Effect.gen(function*() {
      const forged = yield* Effect.promise(() =>
        new SignJWT({ method: "sep10" }).setProtectedHeader({ alg: "HS256" }).setIssuer("http://payroll.test")
          .setSubject("GABC").setJti("x").setIssuedAt().setExpirationTime("1h")
          .sign(new TextEncoder().encode("another-secret-that-is-long-enough-for-hs256"))
      )
      const res = yield* me(forged)
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({ error: "invalid session token" })
    }))

  it.effect("alg none and other algorithms with the right key are 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      const [, payload] = token.split(".")
      const none = `${base64url({ alg: "none", typ: "JWT" })}.${payload}.`
      expect((yield* me(none)).status).toBe(401)
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString())
      const hs512 = yield* Effect.promise(() =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).sign(new TextEncoder().encode(app.jwtSecret))
      )
      expect((yield* me(hs512)).status).toBe(401)
    }))

  it.effect("an expired session is 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      app.clock.offsetMs = 61 * 60 * 1000
      const res = yield* me(token).pipe(Effect.ensuring(Effect.sync(() => (app.clock.offsetMs = 0))))
      expect(res.status).toBe(401)
      expect(res.body.error).toBe("session expired")
    }))

  it.effect("missing, empty and malformed bearer headers are 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      for (const headers of [{}, { authorization: "Bearer " }, { authorization: "Bearer" }, { authorization: "Basic abc" }]) {
        const res = yield* call(app, "GET", "/me", { headers })
        expect(res.status).toBe(401)
        expect(typeof res.body.error).toBe("string")
      }
    }))

  it.effect("a valid Privy token gives an email session", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "POST", "/auth/privy", { json: { token: yield* privyToken() } })
      expect(res.status).toBe(200)
      const who = yield* me(res.body.token)
      expect(who.body).toMatchObject({ sub: "did:privy:cm0abc", method: "privy", needsOnboarding: true })
    }))

  it.effect("Privy tokens that are expired, for another app, from another issuer or signed by another key are 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const cases = [
        yield* privyToken({ expiresIn: Math.floor(Date.now() / 1000) - 60 }),
        yield* privyToken({ audience: "someone-else" }),
        yield* privyToken({ issuer: "evil.io" }),
        yield* privyToken({ key: strangerKeys.privateKey })
      ]
      const statuses = []
      for (const token of cases) statuses.push((yield* call(app, "POST", "/auth/privy", { json: { token } })).status)
      expect(statuses).toEqual([401, 401, 401, 401])
      const hs256 = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setIssuer("privy.io").setAudience(PRIVY_APP).setSubject("did:privy:x")
          .setExpirationTime("1h").sign(new TextEncoder().encode(privyPem))
      )
      expect((yield* call(app, "POST", "/auth/privy", { json: { token: hs256 } })).status).toBe(401)
    }))
})

layer(TestAppLive())("email sign-in unconfigured", (it) => {
  it.effect("POST /auth/privy answers 501", () =>
    Effect.gen(function*() {
      const res = yield* call(yield* TestApp, "POST", "/auth/privy", { json: { token: yield* privyToken() } })
      expect(res.status).toBe(501)
      expect(res.body.error).toContain("not configured")
    }))
})
