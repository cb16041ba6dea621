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
