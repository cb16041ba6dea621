import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { generateKeyPair, SignJWT } from "jose"
import { api } from "./support/Api.ts"
import { call, signIn } from "./support/Client.ts"
import { PRIVY_APP, privyConfig, privyPem, privyToken } from "./support/Privy.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

const strangerKeys = await generateKeyPair("ES256")

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const me = (token: string) => Effect.flatMap(TestApp, (app) => Effect.flatMap(api(app, token), (c) => c.account.me({ urlParams: {} })))
const privy = (payload: { readonly token: string }) => Effect.flatMap(TestApp, (app) => Effect.flatMap(api(app), (c) => c.auth.privy({ payload })))

layer(TestAppLive(privyConfig))("session tokens", (it) => {
  it.effect("a session JWT carries iss, sub, iat, exp (1 hour), jti and the sign-in method", () =>
    Effect.gen(function*() {
      const token = yield* signIn(yield* TestApp)
      const [header, payload] = token.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url").toString()))
      expect(header).toEqual({ alg: "HS256", typ: "JWT" })
      expect(payload).toMatchObject({ iss: "http://payroll.test", method: "sep10" })
      expect(payload.exp - payload.iat).toBe(3600)
      expect(typeof payload.jti).toBe("string")
      expect((yield* me(token)).method).toBe("sep10")
    }))

  it.effect("a token signed with another key is 401", () =>
    Effect.gen(function*() {
      const forged = yield* Effect.promise(() =>
        new SignJWT({ method: "sep10" }).setProtectedHeader({ alg: "HS256" }).setIssuer("http://payroll.test")
          .setSubject("GABC").setJti("x").setIssuedAt().setExpirationTime("1h")
          .sign(new TextEncoder().encode("another-secret-that-is-long-enough-for-hs256"))
      )
      const res = yield* Effect.flip(me(forged))
      expect(res).toMatchObject({ _tag: "Unauthorized", error: "invalid session token" })
    }))

  it.effect("alg none and other algorithms with the right key are 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      const [, payload] = token.split(".")
      const none = `${base64url({ alg: "none", typ: "JWT" })}.${payload}.`
      expect((yield* Effect.flip(me(none)))._tag).toBe("Unauthorized")
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString())
      const hs512 = yield* Effect.promise(() =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).sign(new TextEncoder().encode(app.jwtSecret))
      )
      expect((yield* Effect.flip(me(hs512)))._tag).toBe("Unauthorized")
    }))

  it.effect("an expired session is 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      app.clock.offsetMs = 61 * 60 * 1000
      const res = yield* me(token).pipe(Effect.flip, Effect.ensuring(Effect.sync(() => (app.clock.offsetMs = 0))))
      expect(res).toMatchObject({ _tag: "Unauthorized", error: "session expired" })
    }))

  it.effect("missing, empty and malformed bearer headers are 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const missing = yield* Effect.flip((yield* api(app)).account.me({ urlParams: {} }))
      expect(missing).toMatchObject({ _tag: "Unauthorized", error: expect.any(String) })
      for (const headers of [{ authorization: "Bearer " }, { authorization: "Bearer" }, { authorization: "Basic abc" }]) {
        const res = yield* call(app, "GET", "/me", { headers })
        expect(res.status).toBe(401)
        expect(typeof res.body.error).toBe("string")
      }
    }))

  it.effect("a valid Privy token gives an email session", () =>
    Effect.gen(function*() {
      const session = yield* privy({ token: yield* privyToken() })
      const who = yield* me(session.token)
      expect(who).toMatchObject({ sub: "did:privy:cm0abc", method: "privy", needsOnboarding: true })
    }))

  it.effect("Privy tokens that are expired, for another app, from another issuer or signed by another key are 401", () =>
    Effect.gen(function*() {
      const cases = [
        yield* privyToken({ expiresIn: Math.floor(Date.now() / 1000) - 60 }),
        yield* privyToken({ audience: "someone-else" }),
        yield* privyToken({ issuer: "evil.io" }),
        yield* privyToken({ key: strangerKeys.privateKey })
      ]
      const tags = []
      for (const token of cases) tags.push((yield* Effect.flip(privy({ token })))._tag)
      expect(tags).toEqual(["Unauthorized", "Unauthorized", "Unauthorized", "Unauthorized"])
      const hs256 = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setIssuer("privy.io").setAudience(PRIVY_APP).setSubject("did:privy:x")
          .setExpirationTime("1h").sign(new TextEncoder().encode(privyPem))
      )
      expect((yield* Effect.flip(privy({ token: hs256 })))._tag).toBe("Unauthorized")
    }))
})

layer(TestAppLive())("email sign-in unconfigured", (it) => {
  it.effect("POST /auth/privy answers 501", () =>
    Effect.gen(function*() {
      const res = yield* Effect.flip(privy({ token: yield* privyToken() }))
      expect(res).toMatchObject({ _tag: "NotImplemented", error: expect.stringContaining("not configured") })
    }))
})
