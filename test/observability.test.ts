import { Reactivity } from "@effect/experimental"
import { describe, expect, it, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Cause, ConfigProvider, Console, Context, Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import { LoggingLive } from "../src/Observability/Logging.ts"
import { call, employer, signIn } from "./support/Client.ts"
import { spawnService } from "./support/Spawned.ts"
import { loopbackRpc, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { freshDatabase } from "./support/TestDatabase.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"
import { waitFor as waitForProbe } from "./support/WaitFor.ts"

const METRICS_TOKEN = "scrape-me-with-this-0123456789"
const ALLOWED = "https://payroll-app.example.com"

/** A loopback OTLP/HTTP collector that records what is posted to it. */
interface Collector {
  readonly url: string
  readonly posts: Array<{ readonly path: string; readonly contentType: string; readonly body: string }>
}
const Collector = Context.GenericTag<Collector>("test/Collector")

const listen = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      resolve(typeof address === "object" && address !== null ? address.port : 0)
    })
  })

/** On OTLP's default port when it is free, so that "nothing exported" also covers an exporter's default target. */
const collectorOn = (preferredPort: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const posts: Array<{ path: string; contentType: string; body: string }> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          posts.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks).toString() })
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      const port = await listen(server, preferredPort).catch(() => listen(server, 0))
      return { server, collector: { url: `http://127.0.0.1:${port}`, posts } }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(Effect.map(({ collector }) => collector))

/** Every line the service's logger writes, instead of the console. */
const lines: Array<string> = []
const CapturedConsole = Layer.unwrapEffect(
  Effect.map(Effect.console, (base) =>
    Console.setConsole({ ...base, unsafe: { ...console, log: (...args: ReadonlyArray<unknown>) => void lines.push(args.map(String).join(" ")) } }))
)

/** `waitFor` as an effect, with what it waits for first. */
const waitFor = <A>(what: string, probe: () => A | undefined) => Effect.promise(() => waitForProbe(probe, 15_000, what))


/** Some traffic: sign-ins, an organization, a sponsored transfer, a refused one, an invite used end to end. */
const traffic = (app: Pick<TestAppShape, "url" | "rpc">) =>
  Effect.gen(function*() {
    const { token, wallet } = yield* walletEmployer(app)
    const paid = yield* postTransfer(app, token, innerTransfer(app, wallet))
    expect(paid.status).toBe(200)
    const refused = yield* postTransfer(app, token, innerTransfer(app, wallet, { fee: 20_000_000 }))
    expect(refused.body.rule).toBe("fee")
    const boss = yield* employer(app, "Invites Inc")
    const created = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Ada", email: "ada@example.com" } })
    const issued = yield* call(app, "POST", `/contractors/${created.body.id}/invites`, { token: boss.token })
    const invite = issued.body.token as string
    expect(invite).toMatch(/^[\w-]{43}$/)
    const contractor = yield* signIn(app, Keypair.random())
    expect((yield* call(app, "GET", `/me?invite=${invite}`, { token: contractor })).status).toBe(200)
    expect((yield* call(app, "POST", `/invites/${invite}/accept`, { token: contractor, json: {} })).status).toBe(200)
    return { invite, sessions: [token, boss.token, contractor] }
  })

const ConfiguredLive = Layer.unwrapEffect(
  Effect.map(Collector, (collector) =>
    TestAppLive({
      METRICS_TOKEN,
      LOG_FORMAT: "json",
      LOG_LEVEL: "debug",
      CORS_ORIGINS: `${ALLOWED}, https://admin.example.com`,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "100"
    }))
).pipe(Layer.provideMerge(Layer.scoped(Collector, collectorOn(0))), Layer.provide(CapturedConsole))

layer(ConfiguredLive)("observability, configured", (it) => {
  it.effect("GET /metrics: Prometheus text with the service's series, behind METRICS_TOKEN", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      yield* traffic(app)
      const anonymous = yield* call(app, "GET", "/metrics")
      expect(anonymous.status).toBe(401)
      expect(anonymous.body.error).toEqual(expect.any(String))
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expect((yield* call(app, "GET", "/metrics", { token: `${METRICS_TOKEN}x` })).status).toBe(401)
      expect((yield* call(app, "GET", "/metrics", { headers: { authorization: `Basic ${METRICS_TOKEN}` } })).status).toBe(401)

      const scrape = yield* call(app, "GET", "/metrics", { token: METRICS_TOKEN })
      expect(scrape.status).toBe(200)
      expect(scrape.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      const text = scrape.body as string
      for (
        const series of [
          /^# TYPE http_requests_total counter$/m,
          /^http_requests_total\{[^}]*route="\/transfer"[^}]*status="200"[^}]*\} \d+/m,
          /^# TYPE http_request_duration_seconds histogram$/m,
          /^http_request_duration_seconds_bucket\{[^}]*route="\/transfer"[^}]*le="\+Inf"[^}]*\} \d+/m,
          /^transfers_total\{[^}]*outcome="SUCCESS"[^}]*\} [1-9]/m,
          /^sponsor_refusals_total\{[^}]*rule="fee"[^}]*\} [1-9]/m,
          /^stellar_rpc_calls_total\{[^}]*method="sendTransaction"[^}]*result="ok"[^}]*\} [1-9]/m,
          /^stellar_rpc_call_duration_seconds_bucket\{[^}]*method="sendTransaction"[^}]*\} \d+/m,
          /^reconciler_rounds_total\{[^}]*result="ok"[^}]*\} \d+/m,
          /^batch_jobs_queued(\{[^}]*\})? \d+/m
        ]
      ) expect(text).toMatch(series)
      // A raw path never becomes a label: invite tokens stay out of the series.
      expect(text).not.toMatch(/\/invites\/[\w-]{43}/)
    }))

  it.effect("LOG_FORMAT=json: one JSON object per line, annotations as fields, no secrets", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { invite, sessions } = yield* traffic(app)
      yield* call(app, "GET", "/metrics", { token: METRICS_TOKEN })
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(records.length).toBeGreaterThan(10)
      for (const record of records) {
        expect(record).toMatchObject({ time: expect.any(String), level: expect.any(String), message: expect.any(String) })
        expect(Number.isNaN(Date.parse(record.time as string))).toBe(false)
      }
      const access = records.filter((record) => record.route === "/transfer" && record.status === 200)
      expect(access.length).toBeGreaterThan(0)
      expect(access[0]).toMatchObject({ requestId: expect.any(String), ms: expect.any(Number), level: "info" })
      expect(records.some((record) => record.message === "transfer settled" && typeof record.hash === "string")).toBe(true)
      // Another instance in the same process logs each line once, not once per instance.
      const second = yield* app.startInstance
      yield* call({ ...app, url: second.url }, "GET", "/health/live", { headers: { "x-request-id": "one-line-please" } })
      yield* second.stop
      const answered = lines.map((line) => JSON.parse(line)).filter((r) => r.requestId === "one-line-please" && r.message === "http")
      expect(answered).toHaveLength(1)
      const everything = lines.join("\n")
      const secrets = [
        app.jwtSecret,
        app.sponsorKey.secret(),
        app.sep10Key.secret(),
        app.faucetKey.secret(),
        METRICS_TOKEN,
        invite,
        ...sessions
      ]
      for (const secret of secrets) expect(everything).not.toContain(secret)
    }))

  it.effect("OTLP/HTTP: spans reach the collector, named for the service, with no tokens in URLs", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const collector = yield* Collector
      const { invite, sessions } = yield* traffic(app)
      const spans = () =>
        collector.posts.flatMap((post) => {
          const data = JSON.parse(post.body) as {
            resourceSpans: Array<{
              resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
              scopeSpans: Array<{ spans: Array<{ name: string; attributes: Array<{ key: string; value: { stringValue?: string } }> }> }>
            }>
          }
          return data.resourceSpans.flatMap((r) =>
            r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, resource: r.resource })))
          )
        })
      yield* waitFor("an exported transfer span", () => spans().find((span) => span.name === "Transfers.submit"))
      yield* waitFor("an exported accept request", () =>
        spans().find((span) =>
          span.attributes.some((a) => a.key === "url.path" && a.value.stringValue === "/invites/:token/accept")
        ))
      for (const post of collector.posts) {
        expect(post.path).toBe("/v1/traces")
        expect(post.contentType).toMatch(/^application\/json/)
      }
      const all = spans()
      expect(all.some((span) => span.name.startsWith("http.server"))).toBe(true)
      expect(all.some((span) => span.name.startsWith("RpcClient."))).toBe(true)
      expect(all[0]!.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "confidential-payroll" } })
      expect(all.flatMap((span) => span.attributes).some((a) => a.key === "url.query")).toBe(false)
      const exported = collector.posts.map((post) => post.body).join("\n")
      for (const secret of [invite, METRICS_TOKEN, app.jwtSecret, app.sponsorKey.secret(), ...sessions]) {
        expect(exported).not.toContain(secret)
      }
    }))

  it.effect("CORS: allowed origins are echoed, others get no CORS headers; preflight answers", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const allowed = yield* call(app, "GET", "/health/live", { headers: { origin: ALLOWED } })
      expect(allowed.headers.get("access-control-allow-origin")).toBe(ALLOWED)
      expect(allowed.headers.get("vary")).toMatch(/origin/i)
      expect(allowed.headers.get("access-control-expose-headers")).toMatch(/retry-after/)
      expect(allowed.headers.get("access-control-allow-credentials")).toBeNull()
      const denied = yield* call(app, "GET", "/health/live", { headers: { origin: "https://evil.example.net" } })
      expect(denied.status).toBe(200)
      expect(denied.headers.get("access-control-allow-origin")).toBeNull()

      const preflight = (origin: string) =>
        call(app, "OPTIONS", "/transfer", {
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" }
        })
      const ok = yield* preflight(ALLOWED)
      expect(ok.status).toBe(204)
      expect(ok.headers.get("access-control-allow-origin")).toBe(ALLOWED)
      expect(ok.headers.get("access-control-allow-methods")).toMatch(/POST/)
      expect(ok.headers.get("access-control-allow-headers")).toMatch(/authorization/)
      expect(ok.headers.get("access-control-allow-headers")).toMatch(/content-type/)
      const refused = yield* preflight("https://evil.example.net")
      expect(refused.headers.get("access-control-allow-origin")).toBeNull()

      // SEP-1 still holds: stellar.toml may be read from anywhere.
      const toml = yield* call(app, "GET", "/.well-known/stellar.toml", { headers: { origin: "https://wallet.example.org" } })
      expect(toml.headers.get("access-control-allow-origin")).toBe("*")
    }))
})

const DefaultLive = Layer.unwrapEffect(
  Effect.map(Collector, () => TestAppLive({ OTEL_BSP_SCHEDULE_DELAY: "100" }))
).pipe(Layer.provideMerge(Layer.scoped(Collector, collectorOn(4318))))

layer(DefaultLive)("observability, defaults", (it) => {
  it.effect("/metrics needs no token when METRICS_TOKEN is unset, and no session", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const scrape = yield* call(app, "GET", "/metrics")
      expect(scrape.status).toBe(200)
      expect(scrape.body).toMatch(/^# (HELP|TYPE) /m)
    }))

  it.effect("no CORS headers at all without CORS_ORIGINS, except stellar.toml's", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const plain = yield* call(app, "GET", "/health/live", { headers: { origin: ALLOWED } })
      expect([...plain.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([])
      const preflight = yield* call(app, "OPTIONS", "/transfer", {
        headers: { origin: ALLOWED, "access-control-request-method": "POST" }
      })
      expect([...preflight.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([])
      const toml = yield* call(app, "GET", "/.well-known/stellar.toml", { headers: { origin: ALLOWED } })
      expect(toml.headers.get("access-control-allow-origin")).toBe("*")
    }))

  it.effect("without OTEL_EXPORTER_OTLP_ENDPOINT no span leaves the process", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const collector = yield* Collector
      const second = yield* app.startInstance
      const other = { ...app, url: second.url }
      yield* traffic(other)
      // Stopping flushes any exporter there would be.
      yield* second.stop
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
      expect(collector.posts).toEqual([])
    }))
})

it.effect("a JSON line carries the failure's cause; configured and secret-shaped values never appear", () =>
  Effect.gen(function*() {
    const written: Array<string> = []
    const capture = Effect.map(Effect.console, (base) => ({ ...base, unsafe: { ...console, log: (line: unknown) => void written.push(String(line)) } }))
    const jwtSecret = "a-configured-jwt-secret-of-32-bytes!"
    const seed = Keypair.random().secret()
    const session = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJHQUJDIn0.c2lnbmF0dXJlLXZhbHVl"
    const invite = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5"
    yield* Effect.logError(`signing with ${jwtSecret} failed`, Cause.fail(new Error(`upstream echoed ${seed}`))).pipe(
      Effect.annotateLogs({ requestId: "req-1", route: "/invites/:token/accept", status: 500, ms: 3, authorization: `Bearer ${session}` }),
      Effect.annotateLogs({ target: `/invites/${invite}/accept?invite=${invite}`, note: `token ${session}` }),
      Effect.provide(LoggingLive),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["LOG_FORMAT", "json"], ["JWT_SECRET", jwtSecret]]))),
      Effect.withConsole(yield* capture)
    )
    expect(written).toHaveLength(1)
    const record = JSON.parse(written[0]!)
    expect(record).toMatchObject({ level: "error", requestId: "req-1", route: "/invites/:token/accept", status: 500, ms: 3 })
    expect(record.message).toBe("signing with [REDACTED] failed")
    expect(record.cause).toMatch(/upstream echoed \[REDACTED\]/)
    expect(record.authorization).toBe("[REDACTED]")
    for (const secret of [jwtSecret, seed, session, invite]) expect(written[0]).not.toContain(secret)
  }))

describe("the real process", () => {
  it.scopedLive("with NODE_ENV=production every line it writes is JSON, and no secret is among them", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc()
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const { app, output } = yield* spawnService(rpc, { ...database, NODE_ENV: "production", PUBLIC_URL: "http://payroll.test", METRICS_TOKEN })
      const { invite, sessions } = yield* traffic(app)
      const scrape = yield* call(app, "GET", "/metrics", { token: METRICS_TOKEN })
      expect(scrape.body).toMatch(/^transfers_total\{[^}]*outcome="SUCCESS"[^}]*\} 1$/m)
      const written = output().split("\n").filter((line) => line.trim() !== "")
      expect(written.length).toBeGreaterThan(5)
      for (const line of written) expect(() => JSON.parse(line), line).not.toThrow()
      expect(written.map((line) => JSON.parse(line).message)).toContain("transfer settled")
      for (const secret of [app.jwtSecret, app.sponsorKey.secret(), app.sep10Key.secret(), app.faucetKey.secret(), METRICS_TOKEN, invite, ...sessions]) {
        expect(output()).not.toContain(secret)
      }
    }))
})
