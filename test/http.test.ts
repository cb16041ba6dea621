import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { makeClient } from "../src/client.ts"
import { loggablePath } from "../src/Http/ServerMiddleware.ts"
import { call, employer } from "./support/Client.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

/** Sends a chunked body (no Content-Length) of `bytes` bytes and returns the status and body. */
const postChunked = (url: string, bytes: number) =>
  Effect.async<{ status: number; body: string }>((resume) => {
    const req = httpRequest(`${url}/orgs`, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
    }, (res) => {
      let body = ""
      res.on("data", (chunk) => (body += chunk))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
    })
    req.on("error", () => undefined)
    const chunk = Buffer.alloc(16 * 1024, "a")
    for (let sent = 0; sent < bytes; sent += chunk.length) req.write(chunk)
    req.end()
  })

layer(TestAppLive())("HTTP surface", (it) => {
  it.effect("health answers with the database and RPC state", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "GET", "/health")
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ status: "ok", version: "1.0.0", db: "ok", rpc: "ok" })
      app.rpc.setFault({ kind: "http500" }, { times: 1 })
      const degraded = yield* call(app, "GET", "/health")
      expect(degraded.body).toMatchObject({ status: "degraded", rpc: "unavailable" })
    }))

  it.effect("serves OpenAPI 3.1 with version 1.0.0 and interactive docs", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const spec = yield* call(app, "GET", "/openapi.json")
      expect(spec.status).toBe(200)
      expect(spec.body.openapi).toBe("3.1.0")
      expect(spec.body.info.version).toBe("1.0.0")
      expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(["/auth/sep10/challenge", "/contractors", "/me"]))
      const docs = yield* call(app, "GET", "/docs")
      expect(docs.status).toBe(200)
      expect(docs.headers.get("content-type")).toContain("text/html")
    }))

  it.effect("unknown routes answer 404 {error}", () =>
    Effect.gen(function*() {
      const res = yield* call(yield* TestApp, "GET", "/no/such/route")
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: "not found" })
    }))

  it.effect("malformed JSON is 400 {error}", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const res = yield* call(app, "POST", "/contractors", {
        token,
        body: "{\"name\": ",
        headers: { "content-type": "application/json" }
      })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: "malformed JSON body" })
    }))

  it.effect("schema failures are 400 with a readable error", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const res = yield* call(app, "POST", "/contractors", { token, json: { email: "x@example.com" } })
      expect(res.status).toBe(400)
      expect(res.body.error).toMatch(/^invalid request: name/)
    }))

  it.effect("bodies over 256 KiB are 413, by Content-Length and when chunked", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const big = JSON.stringify({ name: "x".repeat(300 * 1024) })
      const res = yield* call(app, "POST", "/orgs", { body: big, headers: { "content-type": "application/json" } })
      expect(res.status).toBe(413)
      expect(res.body).toEqual({ error: "request body over 256 KiB" })
      const chunked = yield* postChunked(app.url, 400 * 1024)
      expect(chunked.status).toBe(413)
      expect(JSON.parse(chunked.body)).toEqual({ error: "request body over 256 KiB" })
    }))

  it.effect("non-JSON bodies are 415", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "POST", "/auth/privy", { body: "token=x", headers: { "content-type": "text/plain" } })
      expect(res.status).toBe(415)
      expect(res.body.error).toBe("request bodies must be application/json")
    }))

  it.effect("withdraw and auditor disclosure need a session and answer 501 naming the CLI", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      expect((yield* call(app, "POST", "/withdraw")).status).toBe(401)
      const { token } = yield* employer(app)
      for (const path of ["/withdraw", "/auditor/disclose"]) {
        const res = yield* call(app, "POST", path, { token })
        expect(res.status).toBe(501)
        expect(res.body.error).toContain("command-line client")
      }
    }))

  it.effect("stellar.toml names the signing key and the web auth endpoint", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "GET", "/.well-known/stellar.toml")
      expect(res.status).toBe(200)
      expect(res.body).toContain(`SIGNING_KEY = "${app.sep10Key.publicKey()}"`)
      expect(res.body).toContain(`WEB_AUTH_ENDPOINT = "http://payroll.test/auth"`)
      expect(res.body).toContain(`NETWORK_PASSPHRASE = "Test SDF Network ; September 2015"`)
    }))

  it.effect("the typed client drives the service", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app, "Typed Client Co")
      const client = yield* makeClient(app.url, token)
      const me = yield* client.account.me({ urlParams: {} })
      expect(me.roles).toEqual(["employer"])
      expect(me.employer?.orgName).toBe("Typed Client Co")
      const stranger = yield* makeClient(app.url, "not-a-jwt")
      const missing = yield* stranger.account.me({ urlParams: {} }).pipe(Effect.flip)
      expect(missing._tag).toBe("Unauthorized")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})


describe("access log", () => {
  it("never carries invite tokens or query strings", () => {
    expect(loggablePath("/invites/s3cr3t-token/accept")).toBe("/invites/:token/accept")
    expect(loggablePath("/orgs/join/s3cr3t-token")).toBe("/orgs/join/:token")
    expect(loggablePath("/me?invite=s3cr3t-token")).toBe("/me")
    expect(loggablePath("/contractors/123")).toBe("/contractors/123")
  })
})
