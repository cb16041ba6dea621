import { Reactivity } from "@effect/experimental"
import { FetchHttpClient, HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Cause, ConfigProvider, Context, Effect, HashMap, Layer, Logger, LogLevel, Metric } from "effect"
import { randomBytes } from "node:crypto"
import { createServer, request as httpRequest } from "node:http"
import { connect, createServer as createTcpServer, type Server, type Socket } from "node:net"
import pg from "pg"
import { appOn } from "../src/Server/App.ts"
import { makeClient } from "../client/src/Client.ts"
import { answerMalformedRequests } from "../src/Http/ClientErrors.ts"
import { DefectsLive } from "../src/Http/Defects.ts"
import { routes } from "../src/Server/App.ts"
import { originForm, splitTarget } from "../src/Http/RequestTarget.ts"
import { serverMiddleware } from "../src/Http/ServerMiddleware.ts"
import { httpRequests } from "../src/Observability/Metrics.ts"
import { isConnectionError, isUniqueViolation } from "../src/Sql/Errors.ts"
import { call, employer, signIn } from "./support/Client.ts"
import { unreadableEnvelopes } from "./support/HostileEnvelopes.ts"
import { freshDatabase } from "./support/TestDatabase.ts"
import { CONFIDENTIAL_TOKEN, loopbackRpc, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { postTransfer, walletEmployer } from "./support/Transfer.ts"

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

/** One request as written, for targets and bodies `fetch` will not send (absolute form, any media type). */
export const rawRequest = (
  url: string,
  options: { readonly method: string; readonly target: string; readonly headers?: Record<string, string>; readonly body?: string }
) =>
  Effect.async<{ status: number; body: any; headers: Record<string, string | Array<string> | undefined> }>((resume) => {
    const { hostname, port } = new URL(url)
    const req = httpRequest({ host: hostname, port, method: options.method, path: options.target, headers: options.headers }, (res) => {
      let text = ""
      res.on("data", (chunk) => (text += chunk))
      res.on("end", () => {
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // not JSON
        }
        resume(Effect.succeed({ status: res.statusCode ?? 0, body, headers: res.headers }))
      })
    })
    req.on("error", (error) => resume(Effect.die(error)))
    req.end(options.body)
  })

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

layer(TestAppLive())("HTTP surface", (it) => {
  it.effect("health answers with the database and RPC state", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "GET", "/health")
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ status: "ok", version: "1.0.0", db: "ok", rpc: "ok" })
      // Until cleared, not counted: the archive's ingester asks getHealth too.
      app.rpc.setFault({ kind: "http500" }, { methods: ["getHealth"] })
      const degraded = yield* call(app, "GET", "/health").pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
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
      // Built on the first request, then the same page: Swagger UI over the contract's document.
      expect(docs.body).toContain("SwaggerUIBundle")
      expect(docs.body).toContain("/auth/sep10/challenge")
      expect((yield* call(app, "GET", "/docs")).body).toBe(docs.body)
      expect((yield* call(app, "GET", "/openapi.json")).body).toEqual(spec.body)
    }))

  it.effect("unknown routes answer 404 {error}", () =>
    Effect.gen(function*() {
      const res = yield* call(yield* TestApp, "GET", "/no/such/route")
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ _tag: "NotFound", error: "not found" })
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
      expect(res.body).toEqual({ _tag: "InvalidRequest", error: "malformed JSON body" })
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
      expect(res.body).toEqual({ _tag: "PayloadTooLarge", error: "request body over 256 KiB" })
      const chunked = yield* postChunked(app.url, 400 * 1024)
      expect(chunked.status).toBe(413)
      expect(JSON.parse(chunked.body)).toEqual({ _tag: "PayloadTooLarge", error: "request body over 256 KiB" })
    }))

  it.effect("non-JSON bodies are 415", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "POST", "/auth/privy", { body: "token=x", headers: { "content-type": "text/plain" } })
      expect(res.status).toBe(415)
      expect(res.body.error).toBe("request bodies must be application/json")
    }))

  it.effect("every JSON media type is read as JSON, on public and session routes; any other is 415", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      for (const type of ["application/vnd.api+json", "application/merge-patch+json", "application/problem+json", "application/json; charset=utf-8", "Application/JSON"]) {
        const verify = yield* call(app, "POST", "/auth/sep10/verify", { body: JSON.stringify({ transaction: "AAAA" }), headers: { "content-type": type } })
        expect(verify.status, type).toBe(400)
        expect(verify.body.error, type).toEqual(expect.any(String))
        const badJson = yield* call(app, "POST", "/auth/sep10/verify", { body: "{", headers: { "content-type": type } })
        expect(badJson.body, type).toEqual({ _tag: "InvalidRequest", error: "malformed JSON body" })
      }
      const org = yield* call(app, "POST", "/orgs", { token, body: JSON.stringify({ name: "Vendor Type Co" }), headers: { "content-type": "application/vnd.api+json" } })
      expect(org.status).toBe(200)
      expect(org.body.name).toBe("Vendor Type Co")
      for (const type of ["text/plain", "multipart/form-data; boundary=x", "application/json-seq", "application/jsonx", "application/xml", "application/x-www-form-urlencoded"]) {
        const res = yield* call(app, "POST", "/orgs", { token, body: "{}", headers: { "content-type": type } })
        expect(res.status, type).toBe(415)
        expect(res.body.error, type).toBe("request bodies must be application/json")
      }
    }))

  it.effect("NUL and unpaired surrogates are 400 naming the field, in bodies, queries, paths, bulk rows and batch items", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app, "Text Rules Co")
      const cases: Array<[string, string, unknown, RegExp]> = [
        ["POST", "/contractors", { name: "Ada\u0000" }, /^invalid request: name: must not contain NUL/],
        ["POST", "/contractors", { name: "Ada", email: "a\ud800@example.com" }, /^invalid request: email: must not contain unpaired surrogates/],
        ["POST", "/batches", { name: "\udc00" }, /^invalid request: name: must not contain unpaired/],
        ["POST", "/contractors/bulk", { rows: [{ name: "ok" }, { name: "x\u0000" }] }, /^invalid request: rows\.1\.name: must not contain NUL/],
        ["POST", "/batch", { transactions: [{ signedXDR: "AAAA\u0000" }] }, /^invalid request: transactions\.0\.signedXDR: must not contain NUL/],
        ["POST", "/batch", { transactions: [{ signedXDR: "\ud800" }] }, /^invalid request: transactions\.0\.signedXDR: must not contain unpaired/],
        ["POST", "/orgs", { "na\u0000me": "x" }, /^invalid request: body: keys must not contain NUL/]
      ]
      for (const [method, path, json, error] of cases) {
        const body = JSON.stringify(json) // well-formed: NULs and lone surrogates go out as \u escapes
        const res = yield* call(app, method, path, { token, body, headers: { "content-type": "application/json" } })
        expect(res.status, body).toBe(400)
        expect(res.body.error, body).toMatch(error)
      }
      const query = yield* call(app, "GET", "/contractors?q=ada%00", { token })
      expect(query.status).toBe(400)
      expect(query.body.error).toBe("invalid request: q: must not contain NUL characters")
      const param = yield* call(app, "GET", "/batch/%00", { token })
      expect(param.status).toBe(400)
      expect(param.body.error).toBe("invalid request: jobId: must not contain NUL characters")
      const invite = yield* call(app, "POST", "/invites/abc%00/accept", { token, json: {} })
      expect(invite.body.error).toBe("invalid request: token: must not contain NUL characters")
    }))

  it.effect("cursors are validated whole: an out-of-range date is 400 on /contractors and /batches", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app, "Cursor Co")
      const id = "6f1c2c8e-8a7b-4c1e-9d3e-2f1a0b9c8d7e"
      const cursors = [base64url([1e20, id]), base64url([-1, id]), base64url([1.5, id]), base64url([Date.now(), "nope"]), base64url({}), "!!!", base64url("x".repeat(300))]
      for (const path of ["/contractors", "/batches"]) {
        for (const cursor of cursors) {
          const res = yield* call(app, "GET", `${path}?cursor=${encodeURIComponent(cursor)}`, { token })
          expect(res.status, `${path} ${cursor}`).toBe(400)
          expect(res.body.error, `${path} ${cursor}`).toMatch(/cursor/)
        }
        expect((yield* call(app, "GET", `${path}?cursor=${base64url([Date.now(), id])}`, { token })).status).toBe(200)
      }
    }))

  it.effect("JSON nested deeper than 64 levels is 400 before it is parsed", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app, "Deep Co")
      for (const [path, body] of [["/contractors/bulk", `{"rows":${nested(3000)}}`], ["/auth/sep10/verify", nested(3000)], ["/batch", `{"transactions":[{"signedXDR":${nested(65)}}]}`]] as const) {
        const res = yield* call(app, "POST", path, { token, body, headers: { "content-type": "application/json" } })
        expect(res.status, path).toBe(400)
        expect(res.body.error).toBe("JSON nested deeper than 64 levels")
      }
      const strings = JSON.stringify({ name: "[".repeat(3000) })
      expect((yield* call(app, "POST", "/batches", { token, body: strings, headers: { "content-type": "application/json" } })).status).toBe(400)
      expect((yield* call(app, "POST", "/batches", { token, json: { name: "[[[" } })).status).toBe(200)
    }))

  it.effect("signed envelopes the SDK cannot read are 400 on /transfer and a refused item in a batch run", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app, "Odd Envelopes Co")
      const envelopes = unreadableEnvelopes(wallet)
      for (const { name, signedXDR } of envelopes) {
        const res = yield* postTransfer(app, token, signedXDR)
        expect(res.status, name).toBe(400)
        expect(res.body.error, name).toBe("signedXDR holds a transaction the service cannot read")
      }
      const started = yield* call(app, "POST", "/batch", { token, json: { transactions: envelopes.map(({ signedXDR }) => ({ signedXDR })) } })
      expect(started.status).toBe(200)
      let results: Array<{ status: string; error?: string }> = []
      for (let i = 0; i < 100 && results.length < envelopes.length; i++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
        results = (yield* call(app, "GET", `/batch/${started.body.jobId}`, { token })).body.results
      }
      expect(results.map((r) => r.status)).toEqual(envelopes.map(() => "REFUSED"))
      expect(results.every((r) => r.error === "signedXDR holds a transaction the service cannot read")).toBe(true)
    }))

  it.effect("an absolute-form target is routed as its path", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const health = yield* rawRequest(app.url, { method: "GET", target: "http://elsewhere.example/health" })
      expect(health.status).toBe(200)
      expect(health.body.status).toBe("ok")
      const token = yield* signIn(app)
      const accept = yield* rawRequest(app.url, {
        method: "POST",
        target: "http://elsewhere.example/invites/s3cr3t/accept",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}"
      })
      const direct = yield* call(app, "POST", "/invites/s3cr3t/accept", { token, json: {} })
      expect(accept.status).toBe(direct.status)
      expect(accept.body).toEqual(direct.body)
      expect((yield* rawRequest(app.url, { method: "OPTIONS", target: "*" })).status).toBe(400)
    }))

  it.effect("every answer carries nosniff and a request id; authenticated answers and errors are no-store", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const health = yield* call(app, "GET", "/health")
      expect(health.headers.get("x-content-type-options")).toBe("nosniff")
      expect(health.headers.get("cache-control")).toBeNull()
      expect(health.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
      const token = yield* signIn(app)
      const me = yield* call(app, "GET", "/me", { token })
      expect(me.status).toBe(200)
      expect(me.headers.get("cache-control")).toBe("no-store")
      for (const res of [yield* call(app, "GET", "/nowhere"), yield* call(app, "POST", "/orgs", { body: "x", headers: { "content-type": "text/plain" } })]) {
        expect(res.headers.get("cache-control")).toBe("no-store")
        expect(res.headers.get("x-content-type-options")).toBe("nosniff")
      }
      const echoed = yield* call(app, "GET", "/health", { headers: { "x-request-id": "trace-42.a_b:c" } })
      expect(echoed.headers.get("x-request-id")).toBe("trace-42.a_b:c")
      const replaced = yield* call(app, "GET", "/health", { headers: { "x-request-id": "x".repeat(65) } })
      expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
      const early = yield* call(app, "POST", "/orgs", { body: "x", headers: { "content-type": "text/plain", "x-request-id": "early-1" } })
      expect(early.headers.get("x-request-id")).toBe("early-1")
    }))

  it.effect("a client that leaves mid-body or sends none is let go, and the service answers the next one", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { port } = new URL(app.url)
      for (const partial of ["{\"name\":", ""]) {
        yield* Effect.async<void>((resume) => {
          const socket = connect(Number(port), "127.0.0.1", () => {
            socket.write(`POST /orgs HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.api+json\r\nContent-Length: 1000\r\n\r\n${partial}`)
            setTimeout(() => socket.destroy(), 50)
          })
          socket.on("close", () => resume(Effect.void))
          socket.on("error", () => undefined)
        })
      }
      expect((yield* call(app, "GET", "/health")).status).toBe(200)
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


describe("route labels", () => {
  const label = (target: string) => routes.match(splitTarget(originForm(target) ?? "").path).route
  it("never carry tokens, ids or query strings, whatever the form of the target", () => {
    expect(label("/invites/s3cr3t-token/accept")).toBe("/invites/:token/accept")
    expect(label("http://payroll.test/invites/s3cr3t-token/accept")).toBe("/invites/:token/accept")
    expect(label("HTTPS://payroll.test:443/orgs/join/s3cr3t-token?x=1")).toBe("/orgs/join/:token")
    expect(label("/me?invite=s3cr3t-token")).toBe("/me")
    expect(label("/contractors/123")).toBe("/contractors/:id")
    expect(label("/contractors/bulk")).toBe("/contractors/bulk")
    expect(label("/batches/1/payouts/2")).toBe("/batches/:id/payouts/:id")
    expect(label("/transfers/abc")).toBe("/transfers/:hash")
    expect(label("//INVITES//s3cr3t-token/accept/")).toBe("/invites/:token/accept")
    expect(label(`/invites/${"x".repeat(101)}/accept`)).toBe("unmatched")
    expect(label("/no/such/s3cr3t")).toBe("unmatched")
    expect(originForm("*")).toBeUndefined()
  })
})

interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
  readonly cause: string
}

/** A logger that keeps every line, and the lines it kept. */
const capturingLogger = () => {
  const lines: Array<LogLine> = []
  const logger = Logger.make(({ annotations, cause, logLevel, message }) => {
    lines.push({
      level: logLevel.label,
      message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
      cause: Cause.isEmpty(cause) ? "" : Cause.pretty(cause)
    })
  })
  return { lines, logger }
}

const captureLayer = (logger: Logger.Logger<unknown, void>) =>
  Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(LogLevel.Debug))

const urlOf = (context: Context.Context<HttpServer.HttpServer>) => {
  const address = Context.get(context, HttpServer.HttpServer).address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
}

/** A TCP relay in front of the database, which the test can cut as an outage would. */
const relay = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Server; readonly sockets: Set<Socket>; readonly port: number }>((resume) => {
      const sockets = new Set<Socket>()
      const server = createTcpServer((client) => {
        const upstream = connect(target.port, target.host)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on("error", () => undefined)
          socket.on("close", () => {
            sockets.delete(socket)
            client.destroy()
            upstream.destroy()
          })
        }
        client.pipe(upstream).pipe(client)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed({ server, sockets, port: typeof address === "object" && address !== null ? address.port : 0 }))
      })
    }),
    ({ server, sockets }) => Effect.sync(() => {
      server.close()
      for (const socket of sockets) socket.destroy()
    })
  ).pipe(Effect.map((r) => ({
    port: r.port,
    /** The database goes away: open connections break, new ones are refused. */
    cut: Effect.sync(() => {
      r.server.close()
      for (const socket of r.sockets) socket.destroy()
    })
  })))

class LoggedApp extends Context.Tag("test/LoggedApp")<LoggedApp, {
  readonly app: Pick<TestAppShape, "url" | "rpc">
  readonly lines: Array<LogLine>
  /** Cuts the service off its database (only on a PostgreSQL server: the embedded one is served in-process). */
  readonly cutDatabase: Effect.Effect<void> | undefined
}>() {}

/**
 * The whole service as App.ts composes it, plus the defect answering layer, with every log line kept (TestApp keeps
 * warnings only) and, on a PostgreSQL server, its database behind a relay the test can cut.
 */
const LoggedAppLive = Layer.scoped(
  LoggedApp,
  Effect.gen(function*() {
    const rpc = yield* loopbackRpc()
    const database: Record<string, string> = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
    let cutDatabase: Effect.Effect<void> | undefined
    if (database.DATABASE_URL !== undefined) {
      const url = new URL(database.DATABASE_URL)
      const cable = yield* relay({ host: url.hostname, port: Number(url.port || 5432) })
      url.host = `127.0.0.1:${cable.port}`
      database.DATABASE_URL = url.toString()
      cutDatabase = cable.cut
    }
    const sponsor = Keypair.random()
    const faucet = Keypair.random()
    rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN)
    rpc.setAccount({ id: sponsor.publicKey() })
    rpc.setAccount({ id: faucet.publicKey() })
    const settings = {
      ...database,
      STELLAR_RPC_URL: rpc.url,
      JWT_SECRET: randomBytes(32).toString("base64url"),
      SEP10_SIGNING_SECRET: Keypair.random().secret(),
      SPONSOR_SECRET: sponsor.secret(),
      FAUCET_SECRET: faucet.secret(),
      CONFIDENTIAL_TOKEN_CONTRACT: CONFIDENTIAL_TOKEN,
      PUBLIC_URL: "http://payroll.test"
    }
    const { lines, logger } = capturingLogger()
    const environment = Layer.merge(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))), captureLayer(logger))
    const server = appOn(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })).pipe(
      Layer.provide(DefectsLive),
      Layer.provide(environment)
    )
    const context = yield* Layer.build(server)
    return { app: { url: urlOf(context), rpc }, lines, cutDatabase }
  })
)

layer(LoggedAppLive, { timeout: 120_000, excludeTestServices: true })("access log", (it) => {
  it.effect("one line per answer with method, route, status, ms and request id; never a token, in any target form", () =>
    Effect.gen(function*() {
      const { app, lines } = yield* LoggedApp
      const token = yield* signIn(app)
      const secret = "s3cr3t-invite-token"
      lines.length = 0
      const targets = [
        `http://payroll.test/invites/${secret}/accept`,
        `HTTP://payroll.test:80/invites/${secret}/accept?again=${secret}`,
        `/invites/${secret}/accept`,
        `http://payroll.test/orgs/join/${secret}`,
        `/me?invite=${secret}`,
        `http://payroll.test/me?invite=${secret}`
      ]
      for (const [i, target] of targets.entries()) {
        const res = yield* rawRequest(app.url, {
          method: target.includes("/me") ? "GET" : "POST",
          target,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-request-id": `req-${i}` },
          ...(target.includes("/me") ? {} : { body: "{}" })
        })
        expect(res.status, target).toBeLessThan(500)
      }
      expect(JSON.stringify(lines)).not.toContain(secret)
      const access = lines.filter((l) => l.message === "http")
      expect(access.map((l) => l.annotations.route)).toEqual([
        "/invites/:token/accept",
        "/invites/:token/accept",
        "/invites/:token/accept",
        "/orgs/join/:token",
        "/me",
        "/me"
      ])
      for (const [i, line] of access.entries()) {
        expect(line.annotations).toMatchObject({ requestId: `req-${i}`, method: expect.any(String), status: expect.any(Number), ms: expect.any(Number) })
      }
    }))

  it.effect("answers are counted per route template and status", () =>
    Effect.gen(function*() {
      const { app } = yield* LoggedApp
      const counter = Metric.tagged(Metric.tagged(httpRequests, "route", "/contractors/:id"), "status", "401")
      const before = (yield* Metric.value(counter)).count
      yield* call(app, "GET", "/contractors/6f1c2c8e-8a7b-4c1e-9d3e-2f1a0b9c8d7e")
      yield* rawRequest(app.url, { method: "GET", target: "http://payroll.test/contractors/7f1c2c8e-8a7b-4c1e-9d3e-2f1a0b9c8d7e" })
      expect((yield* Metric.value(counter)).count).toBe(before + 2)
    }))

  it.effect("a database outage answers 503 with Retry-After, logged once per request without a stack", () =>
    Effect.gen(function*() {
      const { app, cutDatabase, lines } = yield* LoggedApp
      if (cutDatabase === undefined) return // the embedded database runs in-process: see "defects" below
      const { token } = yield* employer(app, "Outage Co")
      yield* cutDatabase
      lines.length = 0
      for (const path of ["/contractors", "/batches", "/me"]) {
        const res = yield* call(app, "GET", path, { token, headers: { "x-request-id": `outage${path.replace("/", "-")}` } })
        expect(res.status, path).toBe(503)
        expect(res.body, path).toEqual({ _tag: "ServiceUnavailable", error: "database unavailable" })
        expect(res.headers.get("retry-after"), path).toBe("5")
        const mine = lines.filter((l) => l.annotations.requestId === `outage${path.replace("/", "-")}` && l.message !== "http")
        expect(mine.map((l) => [l.level, l.message]), JSON.stringify(mine)).toEqual([["WARN", "database unavailable"]])
        expect(mine[0]!.cause).toBe("")
      }
    }))
})

/** A two-route API whose handlers die: the way a repo's `Effect.orDie` surfaces a database that is down. */
class ProbeGroup extends HttpApiGroup.make("probe")
  .add(HttpApiEndpoint.get("down", "/down"))
  .add(HttpApiEndpoint.get("bug", "/bug"))
{}
class ProbeApi extends HttpApi.make("probe").add(ProbeGroup) {}

/** The error node-postgres gives for a server that is not there, wrapped as @effect/sql-pg wraps it. */
const refusedConnection = Effect.promise(async () => {
  const probe = createTcpServer()
  const port = await new Promise<number>((resolve) => probe.listen(0, "127.0.0.1", () => resolve((probe.address() as { port: number }).port)))
  await new Promise((resolve) => probe.close(resolve))
  const pool = new pg.Pool({ host: "127.0.0.1", port, user: "postgres", database: "postgres" })
  const cause = await pool.query("SELECT 1").then(() => undefined, (error: unknown) => error)
  await pool.end()
  return new SqlError({ cause, message: "Failed to acquire connection" })
})

const ProbeLive = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers
    .handle("down", () => Effect.flatMap(refusedConnection, Effect.die))
    .handle("bug", () => Effect.die(new Error("a bug")))
)

const probeServer = (withDefects: boolean) =>
  Effect.gen(function*() {
    const { lines, logger } = capturingLogger()
    const served = HttpApiBuilder.serve(serverMiddleware(routes)).pipe(
      Layer.provide(withDefects ? DefectsLive : Layer.empty),
      Layer.provide(HttpApiBuilder.api(ProbeApi).pipe(Layer.provide(ProbeLive))),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
      Layer.provide(captureLayer(logger))
    )
    const context = yield* Layer.build(served)
    return { app: { url: urlOf(context) }, lines }
  })

describe("defects", () => {
  it.scopedLive("a connection-class SqlError is 503 with Retry-After, one warning line, no stack", () =>
    Effect.gen(function*() {
      const { app, lines } = yield* probeServer(true)
      const res = yield* call(app, "GET", "/down", { headers: { "x-request-id": "down-1" } })
      expect(res.status).toBe(503)
      expect(res.body).toEqual({ _tag: "ServiceUnavailable", error: "database unavailable" })
      expect(res.headers.get("retry-after")).toBe("5")
      expect(res.headers.get("cache-control")).toBe("no-store")
      const mine = lines.filter((l) => l.annotations.requestId === "down-1")
      expect(mine.map((l) => [l.level, l.message])).toEqual([["WARN", "database unavailable"], ["INFO", "http"]])
      expect(mine[0]!.cause).toBe("")
      expect(mine[0]!.annotations.cause).toMatch(/ECONNREFUSED|connect/)
    }))

  it.scopedLive("any other defect is 500 {error, requestId}, logged once with its cause and the request id", () =>
    Effect.gen(function*() {
      for (const withDefects of [true, false]) {
        const { app, lines } = yield* probeServer(withDefects)
        const res = yield* call(app, "GET", "/bug")
        expect(res.status).toBe(500)
        const requestId = res.headers.get("x-request-id")
        expect(res.body).toEqual({ _tag: "InternalError", error: "internal server error", requestId })
        const mine = lines.filter((l) => l.annotations.requestId === requestId && l.level === "ERROR")
        expect(mine.length, `with DefectsLive: ${withDefects}`).toBe(1)
        expect(mine[0]!.cause).toContain("a bug")
      }
    }))
})

describe("isConnectionError", () => {
  const sqlError = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })
  const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code })

  it.effect("is true for an unreachable server, a broken connection and the server states that mean unavailable", () =>
    Effect.gen(function*() {
      expect(isConnectionError(yield* refusedConnection)).toBe(true)
      for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"]) expect(isConnectionError(sqlError(withCode(code))), code).toBe(true)
      expect(isConnectionError(sqlError(new Error("Connection terminated unexpectedly")))).toBe(true)
      for (const state of ["08006", "08001", "57P01", "57P02", "57P03", "53300"]) expect(isConnectionError(sqlError(withCode(state))), state).toBe(true)
    }))

  it("is false for a query the server refused, and for anything not a SqlError", () => {
    for (const state of ["23505", "42P01", "22P05", "57014"]) expect(isConnectionError(sqlError(withCode(state, "Connection terminated"))), state).toBe(false)
    expect(isConnectionError(withCode("ECONNREFUSED"))).toBe(false)
    expect(isConnectionError(sqlError(new Error("syntax error")))).toBe(false)
    expect(isUniqueViolation(sqlError(withCode("23505")))).toBe(true)
  })
})

describe("malformed HTTP", () => {
  /** What a raw client gets back for `bytes`, written as they are. */
  const exchange = (port: number, bytes: string) =>
    new Promise<string>((resolve) => {
      let answer = ""
      const socket = connect(port, "127.0.0.1", () => socket.write(bytes))
      socket.on("data", (chunk) => (answer += chunk))
      socket.on("error", () => undefined)
      socket.on("close", () => resolve(answer))
    })

  it.live("requests Node's parser refuses are answered with JSON {error} too", () =>
    Effect.gen(function*() {
      const server = createServer((_req, res) => res.end("{}"))
      answerMalformedRequests(server)
      const port = yield* Effect.promise(() => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))))
      const garbage = yield* Effect.promise(() => exchange(port, "GARBAGE\r\n\r\n"))
      expect(garbage).toMatch(/^HTTP\/1\.1 400 /)
      expect(garbage).toContain("Content-Type: application/json")
      expect(garbage.split("\r\n\r\n")[1]).toBe(JSON.stringify({ _tag: "InvalidRequest", error: "bad request" }))
      const huge = yield* Effect.promise(() => exchange(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`))
      expect(huge).toMatch(/^HTTP\/1\.1 431 /)
      expect(huge.split("\r\n\r\n")[1]).toBe(JSON.stringify({ _tag: "HeadersTooLarge", error: "request header fields too large" }))
      yield* Effect.promise(() => new Promise((resolve) => server.close(resolve)))
    }))
})
