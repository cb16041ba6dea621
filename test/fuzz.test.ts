import { afterAll, expect, layer } from "@effect/vitest"
import { Address, Keypair, Networks, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { randomUUID } from "node:crypto"
import { Agent, request as httpRequest } from "node:http"
import pg from "pg"
import { routes } from "../src/Server/App.ts"
import { originForm, splitTarget } from "../src/Http/RequestTarget.ts"
import { call } from "./support/Client.ts"
import { unreadableEnvelopes } from "./support/HostileEnvelopes.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { innerTransfer, type InnerOptions, walletEmployer } from "./support/Transfer.ts"

/**
 * Property-based fuzzing of every route through HTTP: whatever arrives (hostile JSON, NULs and lone surrogates,
 * huge strings, deep nesting, junk paths and queries, any media type, mutated and odd-shaped signed envelopes),
 * the service answers, below 500 (501 where a route is designed to say "not implemented"), and every answer that is
 * not 2xx is JSON with a string `error`.
 *
 * Seeded: `FUZZ_SEED` (default below) and `FUZZ_RUNS` (a multiplier; `npm run test:fuzz` runs 10×). A failure
 * prints the seed, the failing case and its path; `FUZZ_SEED=… FUZZ_PATH=… npx vitest run test/fuzz.test.ts -t …`
 * replays exactly that case. The first failure ends the run (no shrinking: a hang would make shrinking slow).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_240_601)
const SCALE = Number(process.env.FUZZ_RUNS ?? 1)
const runs = (n: number) => Math.max(1, Math.round(n * SCALE))
const TIMEOUT = (n: number) => 60_000 + runs(n) * 40

/** How long a client waits for an answer; no answer by then is a failure. */
const ANSWER_WITHIN_MS = 15_000

interface Fixture {
  readonly app: TestAppShape
  readonly wallet: Keypair
  readonly token: string
  readonly contractorId: string
  readonly batchId: string
  readonly payoutId: string
  readonly inviteToken: string
  readonly envelopes: ReadonlyArray<string>
}

let fixture: Promise<Fixture> | undefined

/** One employer (a wallet on the ledger, with an organization), a ready contractor in a batch, an invite. */
const setUp = (app: TestAppShape) =>
  (fixture ??= Effect.runPromise(Effect.gen(function*() {
    const { wallet, token } = yield* walletEmployer(app, "Fuzz Co")
    const payee = Keypair.random().publicKey()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, payee)
    const contractor = yield* call(app, "POST", "/contractors", { token, json: { name: "Payee", address: payee } })
    const invited = yield* call(app, "POST", "/contractors", { token, json: { name: "Invited", email: "invited@example.com" } })
    const invite = yield* call(app, "POST", `/contractors/${invited.body.id}/invites`, { token })
    const batch = yield* call(app, "POST", "/batches", { token, json: { name: "Fuzz batch" } })
    const payouts = yield* call(app, "POST", `/batches/${batch.body.id}/payouts`, { token, json: { contractorIds: [contractor.body.id] } })
    const envelopes = Array.from({ length: 4 }, () => innerTransfer(app, wallet, { to: payee }))
    return {
      app,
      wallet,
      token,
      contractorId: contractor.body.id as string,
      batchId: batch.body.id as string,
      payoutId: payouts.body[0].id as string,
      inviteToken: invite.body.token as string,
      envelopes
    }
  })))

// ---- requests ------------------------------------------------------------------------------------------------

interface Sent {
  readonly method: string
  readonly target: string
  readonly headers: Record<string, string>
  readonly body?: string | Buffer
}

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text)

/** Counterexamples print short (the seed and path replay them whole). */
const printable = (sent: Sent): Sent =>
  Object.assign(sent, {
    [fc.toStringMethod]: () =>
      JSON.stringify({
        method: sent.method,
        target: clip(sent.target),
        headers: Object.fromEntries(Object.entries(sent.headers).map(([k, v]) => [k, clip(v, 80)])),
        body: sent.body === undefined ? undefined : clip(Buffer.isBuffer(sent.body) ? `<${sent.body.length} bytes>` : sent.body)
      })
  })

interface Answer {
  readonly status: number
  readonly contentType: string
  readonly text: string
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 })

const send = (url: string, sent: Sent) =>
  new Promise<Answer>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    // Framed explicitly: Node's client sends a DELETE body unframed, which the server reads as the next request.
    const headers = sent.body === undefined ? sent.headers : { ...sent.headers, "content-length": String(Buffer.byteLength(sent.body)) }
    const req = httpRequest(
      { agent, host: hostname, port, method: sent.method, path: sent.target, headers, timeout: ANSWER_WITHIN_MS },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString() })
        )
        res.on("error", reject)
      }
    )
    req.on("timeout", () => req.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS} ms`)))
    req.on("error", reject)
    req.end(sent.body)
  })

/** Routes designed to answer 501: withdrawals, disclosure, and what this test app leaves unconfigured. */
const NOT_IMPLEMENTED = /^\/(withdraw|auditor\/disclose|auth\/privy|funding\/)/

/** `FUZZ_STATS=1` prints how the answers fell, per route and status: a check that the cases reach the handlers. */
const stats = new Map<string, number>()
afterAll(() => {
  if (process.env.FUZZ_STATS === undefined) return
  console.log(`[fuzz stats]\n${[...stats.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join("\n")}`)
})

/**
 * What the loopback RPC saw in the last 20 s, for a failure to print beside the request: the sends of each
 * transaction and what became of it, and the latest ledger (whether ledgers kept closing).
 */
const networkLately = (app: TestAppShape) => {
  const since = Date.now() - 20_000
  const lately = app.rpc.transactions
    .filter((t) => t.sends.some((s) => s.at >= since))
    .map((t) => `${t.hash.slice(0, 12)} (inner ${t.innerHash.slice(0, 12)}) ${t.status}${t.ledger === undefined ? "" : ` in ${t.ledger}`}: ` +
      t.sends.map((s) => `${s.status}${s.errorCode === undefined ? "" : ` ${s.errorCode}`} at -${Date.now() - s.at} ms`).join(", ") +
      `; ${polls(app, t.hash)}`)
  return `latest ledger ${app.rpc.latestLedger} (closed ${Date.now() - (app.rpc.closeTimeOf(app.rpc.latestLedger) ?? 0)} ms ago); sends in the last 20 s:\n${lately.join("\n")}`
}

/** How often the service asked getTransaction about `hash`, and when it last did. */
const polls = (app: TestAppShape, hash: string) => {
  const asked = app.rpc.calls.filter((c) => c.method === "getTransaction" && (c.params as { hash?: unknown } | undefined)?.hash === hash)
  return asked.length === 0 ? "never polled" : `polled ${asked.length}× (first at -${Date.now() - asked[0]!.at} ms, last at -${Date.now() - asked.at(-1)!.at} ms)`
}

/** The submissions not final yet, as the database holds them (what a transfer may be waiting for). */
const inFlight = async (app: TestAppShape) => {
  const client = new pg.Client({ connectionString: app.config.DATABASE_URL })
  try {
    await client.connect()
    const { rows } = await client.query(`
      SELECT left(inner_hash, 12) AS inner_hash, left(source, 8) AS source, sequence::text AS sequence, state,
        lease_owner, reconcile_failures, to_char(max_time, 'HH24:MI:SS') AS max_time, to_char(lease_until, 'HH24:MI:SS.MS') AS lease_until,
        to_char(created_at, 'HH24:MI:SS.MS') AS created, to_char(now(), 'HH24:MI:SS.MS') AS now
      FROM submissions WHERE state IN ('pending', 'submitted') ORDER BY created_at`)
    const onLedger = (inner: string) =>
      app.rpc.transactions.filter((t) => t.innerHash.startsWith(inner)).map((t) =>
        `${t.hash.slice(0, 12)} ${t.status}${t.ledger === undefined ? "" : ` in ${t.ledger}`}: ` +
        t.sends.map((s) => `${s.status}${s.errorCode === undefined ? "" : ` ${s.errorCode}`} at -${Date.now() - s.at} ms`).join(", ") +
        `; ${polls(app, t.hash)}`).join(" | ") || "never sent"
    const sessions = await client.query(`
      SELECT pid, state, wait_event_type, wait_event, extract(epoch FROM now() - xact_start)::int AS in_xact_s,
        left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query
      FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
    return `submissions in flight:\n${rows.map((r) => `${JSON.stringify(r)}\n  loopback: ${onLedger(String(r.inner_hash))}`).join("\n")}` +
      `\ndatabase sessions:\n${sessions.rows.map((r) => JSON.stringify(r)).join("\n")}`
  } catch (error) {
    return `submissions unreadable: ${String(error)}`
  } finally {
    await client.end().catch(() => undefined)
  }
}

const check = async (app: TestAppShape, sent: Sent) => {
  const started = Date.now()
  const answer = await send(app.url, sent).catch(async (error: Error) => {
    throw new Error(`${error.message} (asked ${Date.now() - started} ms ago); ${networkLately(app)}\n${await inFlight(app)}`)
  })
  const key = `${sent.method} ${routes.match(splitTarget(originForm(sent.target) ?? "").path).route} ${answer.status}`
  stats.set(key, (stats.get(key) ?? 0) + 1)
  const path = sent.target.replace(/^[a-z]+:\/\/[^/]*/i, "")
  const designed = answer.status === 501 && NOT_IMPLEMENTED.test(path)
  if (answer.status >= 500 && !designed) throw new Error(`answered ${answer.status}: ${answer.text.slice(0, 300)}`)
  if (answer.status >= 300 && sent.method !== "HEAD") {
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      throw new Error(`answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 300)}`)
    }
    if (typeof (body as { error?: unknown } | null)?.error !== "string") {
      throw new Error(`answered ${answer.status} without a string error: ${answer.text.slice(0, 300)}`)
    }
  }
  return answer
}

const assertProperty = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => Promise<unknown>) =>
  Effect.tryPromise({
    try: () =>
      fc.assert(fc.asyncProperty(arbitrary, async (value) => void (await predicate(value))), {
        seed: SEED,
        numRuns: runs(numRuns),
        endOnFailure: true,
        ...(process.env.FUZZ_PATH === undefined ? {} : { path: process.env.FUZZ_PATH })
      }),
    catch: (error) => error
  }).pipe(Effect.orDie)

// ---- hostile values ------------------------------------------------------------------------------------------

/** Any UTF-16 code unit, so lone surrogates and NULs come up as often as anything else. */
const codeUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\u202e", "\ufeff") }
)

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: codeUnit, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "", " ", "\u0000", "a\u0000b", "\ud800", "x\udfffy", "\ud83d\ude00", "%00", "'; DROP TABLE contractors; --", "\\", "\"",
      "<script>", "null", "-1", "1e400", "NaN", "__proto__", "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF",
      CONFIDENTIAL_TOKEN, "ada@example.com", "USDC", "1500.1234567"
    )
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 20_000 }).map((n) => "x".repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom(201, 255, 1001, 300 * 1024).map((n) => "\u00e9".repeat(n)) }
)

const hostileKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("name", "email", "address", "rate", "amount", "currency", "rows", "transactions", "signedXDR", "payoutId", "contractorIds", "status", "pvk", "token", "transaction", "__proto__", "constructor") },
  { weight: 1, arbitrary: hostileString }
)

const { json: hostileJson } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("json"), { maxLength: 6 }),
    fc.dictionary(hostileKey, tie("json"), { maxKeys: 6 })
  )
}))

const nesting = fc.tuple(fc.integer({ min: 1, max: 5_000 }), fc.constantFrom("[", "{\"a\":", "[{\"rows\":"), fc.boolean()).map(([depth, open, closed]) => {
  const close = open === "[" ? "]" : open === "{\"a\":" ? "}" : "}]"
  return `${open.repeat(depth)}1${closed ? close.repeat(depth) : ""}`
})

/** A body as text: JSON of anything, route-shaped JSON with hostile fields, nesting, broken JSON, raw bytes. */
const bodyText = (shaped: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 5, arbitrary: shaped.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 3, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: nesting },
    { weight: 1, arbitrary: fc.string({ unit: codeUnit, maxLength: 60 }) },
    { weight: 1, arbitrary: shaped.chain((v) => fc.nat().map((n) => { const t = JSON.stringify(v) ?? ""; return t.slice(0, n % (t.length + 1)) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant("") }
  )

// ---- routes --------------------------------------------------------------------------------------------------

type Param = "contractor" | "batch" | "payout" | "job" | "hash" | "token"

interface Route {
  readonly method: string
  readonly path: string
  readonly auth: boolean
  readonly shape?: (f: Fixture) => fc.Arbitrary<unknown>
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
const field = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostileJson })

const rate = field(fc.record({ amount: fc.oneof(fc.constantFrom("1500", "0.0000001", "1e3"), hostileString), currency: fc.oneof(fc.constant("USDC"), hostileString) }))

/** Every route of src/Api.ts (and docs/routes.md), with the fields its body has when it has one. */
const ROUTES = (f: Fixture): ReadonlyArray<Route> => [
  { method: "GET", path: "/health", auth: false },
  { method: "GET", path: "/openapi.json", auth: false },
  { method: "GET", path: "/docs", auth: false },
  { method: "GET", path: "/.well-known/stellar.toml", auth: false },
  { method: "GET", path: "/crs/bn254_g1.dat", auth: false },
  { method: "GET", path: "/crs/bn254_g2.dat", auth: false },
  { method: "GET", path: "/auth/sep10/challenge", auth: false },
  { method: "POST", path: "/auth/sep10/verify", auth: false, shape: () => fc.record({ transaction: field(hostileString) }) },
  { method: "GET", path: "/auth", auth: false },
  { method: "POST", path: "/auth", auth: false, shape: () => fc.record({ transaction: field(hostileString) }) },
  { method: "POST", path: "/auth/privy", auth: false, shape: () => fc.record({ token: field(hostileString), identityToken: maybe(field(hostileString)) }) },
  { method: "GET", path: "/me", auth: true },
  { method: "POST", path: "/orgs", auth: true, shape: () => fc.record({ name: field(hostileString) }) },
  { method: "POST", path: "/orgs/invites", auth: true },
  { method: "POST", path: "/orgs/join/:token", auth: true },
  { method: "POST", path: "/invites/:token/accept", auth: true, shape: () => fc.record({ pvk: maybe(field(fc.constantFrom("ab".repeat(64), "AB".repeat(64)))) }) },
  {
    method: "POST",
    path: "/contractors",
    auth: true,
    shape: () => fc.record({ name: field(hostileString), email: maybe(field(hostileString)), address: maybe(field(hostileString)), rate: maybe(rate) })
  },
  {
    method: "POST",
    path: "/contractors/bulk",
    auth: true,
    shape: () =>
      fc.record({
        rows: field(fc.array(field(fc.record({ name: field(hostileString), email: maybe(field(hostileString)), address: maybe(field(hostileString)), amount: maybe(field(fc.oneof(fc.double(), hostileString))) })), { maxLength: 8 }))
      })
  },
  { method: "GET", path: "/contractors", auth: true },
  { method: "GET", path: "/contractors/:contractor", auth: true },
  {
    method: "PATCH",
    path: "/contractors/:contractor",
    auth: true,
    shape: () =>
      fc.record({ name: maybe(field(hostileString)), email: maybe(field(fc.option(hostileString))), address: maybe(field(fc.option(hostileString))), rate: maybe(rate), status: maybe(field(fc.constantFrom("invited", "onboarding", "ready", "inactive"))) })
  },
  { method: "POST", path: "/contractors/:contractor/invites", auth: true },
  { method: "POST", path: "/contractors/:contractor/check", auth: true },
  { method: "POST", path: "/transfer", auth: true, shape: () => fc.record({ signedXDR: field(hostileString), payoutId: maybe(field(fc.constant(f.payoutId))) }) },
  { method: "GET", path: "/transfers/:hash", auth: true },
  { method: "POST", path: "/batches", auth: true, shape: () => fc.record({ name: field(hostileString) }) },
  { method: "GET", path: "/batches", auth: true },
  { method: "GET", path: "/batches/:batch", auth: true },
  { method: "POST", path: "/batches/:batch/ready", auth: true },
  { method: "DELETE", path: "/batches/:batch", auth: true },
  { method: "GET", path: "/batches/:batch/payouts", auth: true },
  { method: "POST", path: "/batches/:batch/payouts", auth: true, shape: () => fc.record({ contractorIds: field(fc.array(field(fc.constantFrom(f.contractorId, randomUUID())), { maxLength: 4 })) }) },
  { method: "DELETE", path: "/batches/:batch/payouts/:payout", auth: true },
  { method: "POST", path: "/batch", auth: true, shape: () => fc.record({ transactions: field(fc.array(fc.record({ signedXDR: field(hostileString), payoutId: maybe(field(fc.constant(f.payoutId))) }), { maxLength: 4 })) }) },
  { method: "GET", path: "/batch/:job", auth: true },
  { method: "GET", path: "/contractor/payouts", auth: true },
  { method: "GET", path: "/funding/vault", auth: true },
  { method: "POST", path: "/funding/faucet", auth: true, shape: () => fc.record({ address: maybe(field(hostileString)) }) },
  { method: "POST", path: "/withdraw", auth: true },
  { method: "POST", path: "/auditor/disclose", auth: true }
]

/** Characters Node sends in a request target unescaped; anything else goes percent-encoded. */
const encode = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return text.replace(/[^A-Za-z0-9._~-]/g, (c) => `%${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, "0")}`)
  }
}

/** Request heads stay under Node's 16 KiB limit: past it Node itself answers 431, before any application code. */
const junkSegment = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(fc.string({ unit: codeUnit, maxLength: 40 }), fc.string({ maxLength: 40 })).map(encode) },
  { weight: 2, arbitrary: fc.constantFrom("%00", "%ED%A0%80", "%FF", "%", "%zz", "..", ".", "", "%2F", "a%2Fb", "%2e%2e", "x".repeat(3000)) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9\-._~!$&'()*+,;=:@]{0,30}$/) }
)

const paramValue = (f: Fixture, param: Param) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant(
        { contractor: f.contractorId, batch: f.batchId, payout: f.payoutId, job: randomUUID(), hash: "ab".repeat(32), token: f.inviteToken }[param]
      )
    },
    { weight: 1, arbitrary: fc.uuid().map(String) },
    { weight: 3, arbitrary: junkSegment }
  )

const QUERY_KEYS = ["limit", "cursor", "status", "q", "account", "home_domain", "invite"]

const queryString = fc.array(
  fc.tuple(
    fc.oneof(fc.constantFrom(...QUERY_KEYS), junkSegment),
    fc.oneof(
      junkSegment,
      fc.constantFrom("1", "0", "100", "101", "-5", "1.5", "ready", "draft", "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"),
      fc.tuple(fc.double(), fc.uuid()).map((v) => Buffer.from(JSON.stringify(v)).toString("base64url"))
    )
  ),
  { maxLength: 4 }
).map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`))

const CONTENT_TYPES = [
  "application/json", "application/json; charset=utf-8", "application/vnd.api+json", "application/merge-patch+json",
  "application/problem+json", "application/ld+json; profile=x", "APPLICATION/JSON", "text/plain", "text/json",
  "multipart/form-data; boundary=xyz", "application/x-www-form-urlencoded", "application/xml", "application/json-seq",
  "application/octet-stream", "*/*", "garbage", ";;;"
]

const contentType = fc.oneof({ weight: 6, arbitrary: fc.constant("application/json") }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: fc.constant(undefined) })

const authorization = (f: Fixture, needed: boolean) =>
  fc.oneof(
    { weight: needed ? 8 : 1, arbitrary: fc.constant(`Bearer ${f.token}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("Bearer ", "Bearer x", `Bearer ${f.token}x`, "Basic YTpi", `Bearer ${"a".repeat(4000)}`, "bearer") }
  )

const requestIdHeader = fc.option(fc.oneof(fc.stringMatching(/^[ -~]{0,80}$/), fc.constant("ok-id.1")), { nil: undefined })

/** A request to one of the routes, with junk anywhere: path parameters, extra segments, query, headers, body. */
const anyRequest = (f: Fixture) =>
  fc.constantFrom(...ROUTES(f)).chain((route) => {
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] as Param)
    return fc.record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") }),
      values: fc.tuple(...params.map((p) => paramValue(f, p))),
      extra: fc.oneof({ weight: 8, arbitrary: fc.constant("") }, { weight: 1, arbitrary: junkSegment.map((s) => `/${s}`) }),
      absolute: fc.oneof({ weight: 5, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.constantFrom("http://payroll.test", "HTTPS://evil.example:8443", "http://a@b") }),
      query: queryString,
      auth: authorization(f, route.auth),
      type: contentType,
      requestId: requestIdHeader,
      body: route.shape === undefined ? fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: bodyText(hostileJson) }) : bodyText(route.shape(f))
    }).map(({ absolute, auth, body, extra, method, query, requestId, type, values }): Sent => {
      let i = 0
      const path = route.path.replace(/:(\w+)/g, () => values[i++] ?? "")
      const headers: Record<string, string> = {}
      if (auth !== undefined) headers.authorization = auth
      if (type !== undefined && body !== undefined) headers["content-type"] = type
      if (requestId !== undefined) headers["x-request-id"] = requestId
      return printable({ method, target: `${absolute}${path}${extra}${query}`, headers, ...(body === undefined || method === "GET" || method === "HEAD" ? {} : { body }) })
    })
  })

// ---- signed envelopes ----------------------------------------------------------------------------------------

const { scval } = fc.letrec<{ scval: xdr.ScVal }>((tie) => ({
  scval: fc.oneof(
    { depthSize: "small" },
    fc.integer({ min: 0, max: 0xffffffff }).map((n) => xdr.ScVal.scvU32(n)),
    fc.boolean().map((b) => xdr.ScVal.scvBool(b)),
    fc.constant(xdr.ScVal.scvVoid()),
    fc.uint8Array({ maxLength: 64 }).map((b) => xdr.ScVal.scvBytes(Buffer.from(b))),
    fc.stringMatching(/^[A-Za-z0-9_]{0,32}$/).map((s) => xdr.ScVal.scvSymbol(s)),
    fc.string({ maxLength: 20 }).map((s) => xdr.ScVal.scvString(s)),
    fc.constantFrom(Keypair.random().publicKey(), CONFIDENTIAL_TOKEN).map((a) => Address.fromString(a).toScVal()),
    fc.array(tie("scval"), { maxLength: 4 }).map((items) => xdr.ScVal.scvVec(items)),
    fc.array(fc.tuple(tie("scval"), tie("scval")), { maxLength: 3 }).map((entries) =>
      xdr.ScVal.scvMap(entries.map(([key, val]) => new xdr.ScMapEntry({ key, val })))
    )
  )
}))

const deepScVal = fc.integer({ min: 1, max: 3_000 }).map((depth) => {
  let value: xdr.ScVal = xdr.ScVal.scvVoid()
  for (let i = 0; i < depth; i++) value = xdr.ScVal.scvVec([value])
  return value
})

/**
 * Odd shapes a signed envelope can take, one or two oddities at a time (more would nearly always trip the first
 * check): built by the SDK, then signed as a client would.
 */
const oddEnvelope = (f: Fixture) => {
  const oddities: Array<fc.Arbitrary<InnerOptions>> = [
    fc.oneof(fc.array(scval, { maxLength: 5 }), deepScVal.map((v) => [v]), fc.tuple(scval, scval, scval)).map((args) => ({ args })),
    fc.oneof(fc.constantFrom("confidential_transfer", "transfer", ""), fc.stringMatching(/^[a-z_]{1,32}$/)).map((fn) => ({ fn })),
    fc.constant({ contract: "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD2KM" }),
    fc.constantFrom(0, 1, 100, 10_000_001, 4_294_967_295).map((fee) => ({ fee })),
    fc.constantFrom(null, -100, 1, 599, 601, 10_000_000).map((validFor) => ({ validFor })),
    fc.constantFrom(2, 3).map((operations) => ({ operations })),
    fc.constant({ opSource: Keypair.random().publicKey() }),
    fc.constant({ passphrase: Networks.PUBLIC }),
    fc.constant({ signer: Keypair.random() }),
    fc.constant({ auth: [] }),
    fc.constant({ to: CONFIDENTIAL_TOKEN }),
    fc.constant({ sequence: 0n })
  ]
  return fc.tuple(fc.constantFrom(...oddities), fc.constantFrom(...oddities)).chain(([a, b]) => fc.tuple(a, b, fc.boolean())).map(([a, b, both]) => {
    try {
      return innerTransfer(f.app, f.wallet, { ...a, ...(both ? b : {}), register: false })
    } catch {
      return f.envelopes[0]!
    }
  })
}

const mutated = (f: Fixture) =>
  fc.tuple(
    fc.constantFrom(...f.envelopes),
    fc.array(
      fc.oneof(
        fc.tuple(fc.constant("flip" as const), fc.nat(), fc.integer({ min: 1, max: 255 })),
        fc.tuple(fc.constant("cut" as const), fc.nat(), fc.constant(0)),
        fc.tuple(fc.constant("grow" as const), fc.nat(), fc.integer({ min: 1, max: 64 })),
        fc.tuple(fc.constant("word" as const), fc.nat(), fc.constantFrom(0, 0x7fffffff, 0xffffffff, 1_000_000))
      ),
      { minLength: 1, maxLength: 4 }
    )
  ).map(([envelope, edits]) => {
    let bytes = Buffer.from(envelope, "base64")
    for (const [kind, at, value] of edits) {
      const i = at % Math.max(1, bytes.length)
      if (kind === "flip") bytes[i] = (bytes[i] ?? 0) ^ value
      if (kind === "cut") bytes = bytes.subarray(0, i)
      if (kind === "grow") bytes = Buffer.concat([bytes.subarray(0, i), Buffer.alloc(value, 0xff), bytes.subarray(i)])
      if (kind === "word" && i + 4 <= bytes.length) bytes.writeUInt32BE(value, i - (i % 4))
    }
    return bytes.toString("base64")
  })

const anyEnvelope = (f: Fixture) =>
  fc.oneof(
    { weight: 4, arbitrary: mutated(f) },
    { weight: 3, arbitrary: oddEnvelope(f) },
    { weight: 1, arbitrary: fc.constantFrom(...unreadableEnvelopes(f.wallet).map((e) => e.signedXDR)) }
  )

const envelopeRequest = (f: Fixture) =>
  fc.tuple(fc.boolean(), fc.array(anyEnvelope(f), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([single, envelopes, withPayout]): Sent => {
    const item = (signedXDR: string) => ({ signedXDR, ...(withPayout ? { payoutId: f.payoutId } : {}) })
    return printable({
      method: "POST",
      target: single ? "/transfer" : "/batch",
      headers: { authorization: `Bearer ${f.token}`, "content-type": "application/json" },
      body: JSON.stringify(single ? item(envelopes[0]!) : { transactions: envelopes.map(item) })
    })
  })

// ---- properties ----------------------------------------------------------------------------------------------

layer(TestAppLive(), { timeout: 120_000, excludeTestServices: true })("fuzz", (it) => {
  it.effect("any route, any junk in target, query, headers and body: answered, below 500, {error} when not 2xx", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const f = yield* Effect.promise(() => setUp(app))
      yield* assertProperty(anyRequest(f), 1_600, (sent) => check(f.app, sent))
    }), TIMEOUT(1_600))

  it.effect("every JSON media type is read as JSON, any other is 415, on every body route", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const f = yield* Effect.promise(() => setUp(app))
      const bodyRoutes = ROUTES(f).filter((r) => r.shape !== undefined && !r.path.includes(":"))
      const arbitrary = fc.tuple(fc.constantFrom(...bodyRoutes), fc.constantFrom(...CONTENT_TYPES), fc.option(fc.constantFrom("; charset=utf-8", ";q=1", " ; x=\"y\""), { nil: "" }))
      yield* assertProperty(arbitrary, 400, async ([route, type, parameters]) => {
        const sent = { method: route.method, target: route.path, headers: { authorization: `Bearer ${f.token}`, "content-type": `${type}${parameters}` }, body: "{}" }
        const answer = await check(f.app, sent)
        const json = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(`${type}${parameters}`.trim())
        const form = route.path === "/auth" && type === "application/x-www-form-urlencoded"
        if (json || form) expect(answer.status, sent.headers["content-type"]).not.toBe(415)
        else expect(answer.status, sent.headers["content-type"]).toBe(415)
      })
    }), TIMEOUT(400))

  it.effect("signed envelopes, mutated and odd-shaped, on /transfer and /batch", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const f = yield* Effect.promise(() => setUp(app))
      yield* assertProperty(envelopeRequest(f), 600, (sent) => check(f.app, sent))
    }), TIMEOUT(600))
})
