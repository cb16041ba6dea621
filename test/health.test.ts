import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call } from "./support/Client.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

layer(TestAppLive())("health routes", (it) => {
  it.effect("/health/live answers while the process runs; /health/ready (and /health) when the database and RPC answer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const live = yield* call(app, "GET", "/health/live")
      expect(live.status).toBe(200)
      expect(live.body).toEqual({ status: "ok", version: "1.0.0" })
      for (const path of ["/health/ready", "/health"]) {
        const ready = yield* call(app, "GET", path)
        expect(ready.status).toBe(200)
        expect(ready.body).toEqual({ status: "ok", version: "1.0.0", db: "ok", rpc: "ok" })
      }
    }))

  it.effect("Stellar RPC not answering makes the instance not ready (503); it is still live", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      for (const fault of [{ kind: "http500" as const }, { kind: "drop" as const }]) {
        // Until cleared: the archive's ingester asks getHealth too, so a fault counted in requests could be used up by it.
        app.rpc.setFault(fault, { methods: ["getHealth"] })
        const ready = yield* call(app, "GET", "/health/ready")
        expect(ready.status).toBe(503)
        expect(ready.body).toMatchObject({ error: "Stellar RPC unavailable", status: "degraded", db: "ok", rpc: "unavailable" })
        const health = yield* call(app, "GET", "/health")
        expect(health.status).toBe(503)
        expect((yield* call(app, "GET", "/health/live")).status).toBe(200)
        app.rpc.setFault(null)
        expect((yield* call(app, "GET", "/health/ready")).status).toBe(200)
      }
    }))

  it.effect("the OpenAPI document lists the three health routes", () =>
    Effect.gen(function*() {
      const spec = yield* call(yield* TestApp, "GET", "/openapi.json")
      expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(["/health", "/health/ready", "/health/live"]))
    }))
})
