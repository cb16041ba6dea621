import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { CorsConfig } from "../src/Config.ts"
import { call } from "./support/Client.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

const ALLOWED = "https://payroll-app.example.com"

const plain = (app: TestAppShape, origin: string) => call(app, "GET", "/health/live", { headers: { origin } })

const preflight = (app: TestAppShape, origin: string) =>
  call(app, "OPTIONS", "/transfer", {
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization" }
  })

const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith("access-control-"))

layer(TestAppLive({ CORS_ORIGINS: "*" }))("CORS_ORIGINS=*", (it) => {
  it.effect("answers `*`, never the origin echoed, on requests and preflights", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      for (const origin of [ALLOWED, "http://localhost:5173", "https://anyone.example.net"]) {
        const reply = yield* plain(app, origin)
        expect(reply.headers.get("access-control-allow-origin"), origin).toBe("*")
        expect(reply.headers.get("vary")).toMatch(/origin/i)
        expect(reply.headers.get("access-control-allow-credentials")).toBeNull()
        const ok = yield* preflight(app, origin)
        expect(ok.status).toBe(204)
        expect(ok.headers.get("access-control-allow-origin")).toBe("*")
        expect(ok.headers.get("access-control-allow-methods")).toMatch(/POST/)
      }
    }))

  it.effect("does not allow the origin `null`", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const reply = yield* plain(app, "null")
      expect(reply.status).toBe(200)
      expect(corsHeaders(reply.headers)).toEqual([])
      expect(corsHeaders((yield* preflight(app, "null")).headers)).toEqual([])
      // stellar.toml is public by SEP-1, whoever asks.
      const toml = yield* call(app, "GET", "/.well-known/stellar.toml", { headers: { origin: "null" } })
      expect(toml.headers.get("access-control-allow-origin")).toBe("*")
    }))
})

layer(TestAppLive({ CORS_ORIGINS: ALLOWED }))("CORS_ORIGINS with one origin", (it) => {
  it.effect("echoes that origin only; `null` and others are not allowed", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      expect((yield* plain(app, ALLOWED)).headers.get("access-control-allow-origin")).toBe(ALLOWED)
      expect((yield* preflight(app, ALLOWED)).headers.get("access-control-allow-origin")).toBe(ALLOWED)
      for (const origin of ["null", "https://evil.example.net"]) {
        expect((yield* plain(app, origin)).headers.get("access-control-allow-origin"), origin).toBeNull()
        expect((yield* preflight(app, origin)).headers.get("access-control-allow-origin"), origin).toBeNull()
      }
      expect(corsHeaders((yield* plain(app, "null")).headers)).toEqual([])
    }))
})

describe("CORS_ORIGINS", () => {
  const read = (value: string) =>
    CorsConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["CORS_ORIGINS", value]]))), Effect.flip)

  it.effect("refuses `null`, alone or in a list, saying why", () =>
    Effect.gen(function*() {
      for (const value of ["null", `${ALLOWED}, null`, "*, NULL"]) {
        expect(String(yield* read(value)), value).toMatch(/CORS_ORIGINS must not list null: .*would allow any page/)
      }
    }))

  it.effect("refuses what is no origin", () =>
    Effect.gen(function*() {
      expect(String(yield* read(`${ALLOWED}/path`))).toMatch(/CORS_ORIGINS must list origins/)
    }))
})

/** stellar.toml (SEP-1) and SEP-10's endpoints: `*` on every answer, and preflights, whatever CORS_ORIGINS says. */
const ANY_ORIGIN_ROUTES = [
  { path: "/.well-known/stellar.toml", method: "GET" },
  { path: "/auth", method: "GET" },
  { path: "/auth", method: "POST" },
  { path: "/auth/sep10/challenge", method: "GET" },
  { path: "/auth/sep10/verify", method: "POST" }
]

const anyOriginAnswers = (app: TestAppShape, origin: string) =>
  Effect.gen(function*() {
    const headers = { origin }
    const account = "GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7"
    const replies = [
      yield* call(app, "GET", "/.well-known/stellar.toml", { headers }),
      yield* call(app, "GET", `/auth?account=${account}`, { headers }),
      yield* call(app, "GET", `/auth/sep10/challenge?account=${account}`, { headers }),
      // Errors of every kind: a handler's, the framework's decode failure, and the checks made before the app runs.
      yield* call(app, "GET", "/auth?account=nobody", { headers }),
      yield* call(app, "GET", "/auth/sep10/challenge", { headers }),
      yield* call(app, "POST", "/auth/sep10/verify", { json: { transaction: "AAAA" }, headers }),
      yield* call(app, "POST", "/auth", { body: "{not json", headers: { ...headers, "content-type": "application/json" } }),
      yield* call(app, "POST", "/auth", { body: "transaction", headers: { ...headers, "content-type": "text/plain" } }),
      yield* call(app, "GET", "/auth/sep10/challenge?account=%00", { headers }),
      yield* call(app, "POST", "/auth/sep10/verify", { body: "x".repeat(300 * 1024), headers: { ...headers, "content-type": "application/json" } })
    ]
    return replies
  })

const expectAnyOrigin = (app: TestAppShape, origin: string) =>
  Effect.gen(function*() {
    const replies = yield* anyOriginAnswers(app, origin)
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 400, 400, 400, 400, 415, 400, 413])
    for (const reply of replies) {
      expect(reply.headers.get("access-control-allow-origin"), `${reply.status} ${reply.body?.error}`).toBe("*")
      expect(reply.headers.get("access-control-expose-headers")).toMatch(/ratelimit/)
      expect(reply.headers.get("access-control-allow-credentials")).toBeNull()
    }
    for (const { method, path } of ANY_ORIGIN_ROUTES) {
      const ok = yield* call(app, "OPTIONS", path, {
        headers: { origin, "access-control-request-method": method, "access-control-request-headers": "content-type, x-client-name" }
      })
      expect(ok.status, `${method} ${path}`).toBe(204)
      expect(ok.headers.get("access-control-allow-origin")).toBe("*")
      expect(ok.headers.get("access-control-allow-methods")).toContain(method)
      expect(ok.headers.get("access-control-allow-headers")).toMatch(/content-type.*x-client-name/)
      expect(Number(ok.headers.get("access-control-max-age"))).toBeGreaterThan(0)
    }
  })

layer(TestAppLive())("without CORS_ORIGINS", (it) => {
  it.effect("stellar.toml and SEP-10's endpoints answer any origin, errors and preflights included; nothing else does", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      yield* expectAnyOrigin(app, ALLOWED)
      yield* expectAnyOrigin(app, "null")
      expect(corsHeaders((yield* plain(app, ALLOWED)).headers)).toEqual([])
      expect(corsHeaders((yield* call(app, "POST", "/auth/privy", { json: { token: "x" }, headers: { origin: ALLOWED } })).headers))
        .toEqual([])
      expect((yield* preflight(app, ALLOWED)).headers.get("access-control-allow-origin")).toBeNull()
    }))
})

layer(TestAppLive({ CORS_ORIGINS: ALLOWED, AUTH_RATE_LIMIT: "1" }))("with CORS_ORIGINS listing one origin", (it) => {
  it.effect("SEP-10's endpoints still answer `*` to any origin, the 429 of the token step included", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const evil = "https://wallet.example.net"
      yield* expectAnyOrigin(app, evil)
      const limited = yield* call(app, "POST", "/auth", { json: { transaction: "AAAA" }, headers: { origin: evil } })
      expect(limited.status).toBe(429)
      expect(limited.headers.get("access-control-allow-origin")).toBe("*")
      expect(limited.headers.get("vary")).toBeNull()
      // Privy sign-in is no SEP-10 endpoint: CORS_ORIGINS decides.
      const privy = yield* call(app, "POST", "/auth/privy", { json: { token: "x" }, headers: { origin: evil } })
      expect(privy.headers.get("access-control-allow-origin")).toBeNull()
      expect((yield* call(app, "POST", "/auth/privy", { json: { token: "x" }, headers: { origin: ALLOWED } }))
        .headers.get("access-control-allow-origin")).toBe(ALLOWED)
    }))
})
