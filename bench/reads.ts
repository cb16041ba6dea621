// Read-route benchmark: the service's read routes against a framework-free baseline (bench/reads-baseline.ts:
// node:http + pg running the service's SQL): GET /me, GET /contractors, GET /batches, GET /batches/{id}/payouts,
// GET /batch/{jobId} and the archive's per-account history.
//
//   BENCH_DB=postgres node_modules/.bin/node bench/reads.ts      (see bench/README.md for the settings and the figures)
//
// This process is the driver: it holds the loopback RPC (the service's sign-in, its registration lookups, its batch
// runs and its archive need it) and the clients. The service (bench/service.ts) and the baseline each run in a child
// process of their own, with a fresh database of the same kind. The service makes its data through its own routes;
// the baseline's database gets a copy of the service's rows (the same ids, times and contents), so that both systems
// read the same data and answer alike, byte for byte once keys are sorted.
import { Keypair, Networks, StrKey } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import pg from "pg"
import { LoopbackRpc, tokenEvents } from "../test/support/LoopbackRpc.ts"
import type { BenchDatabase, Child } from "./support.ts"
import {
  addWallet,
  ascending,
  call,
  childEnv,
  createOrg,
  databaseConnection,
  deployToken,
  envNumber,
  expectOk,
  fixed,
  freshDatabase,
  percentile,
  sep10SignIn,
  serviceEnv,
  signJwt,
  startChild,
  table,
  transferXdr
} from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)

const integer = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
  const value = envNumber(name, fallback)
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got ${value}`)
  return value
}

const settings = {
  db: dbKind,
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  concurrency: (process.env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map((s) => Number(s.trim())),
  seconds: envNumber("BENCH_SECONDS", 5),
  warmup: envNumber("BENCH_WARMUP_SECONDS", 1),
  contractors: integer("BENCH_READS_CONTRACTORS", 200, 0, 1000),
  limit: integer("BENCH_READS_LIMIT", 50, 1, 100),
  batches: integer("BENCH_READS_BATCHES", 60, 1),
  payouts: integer("BENCH_READS_PAYOUTS", 60, 1, 1000),
  jobItems: integer("BENCH_READS_JOB_ITEMS", 5, 1, 6),
  events: integer("BENCH_READS_EVENTS", 100, 1),
  routes: process.env.BENCH_ROUTES ?? ""
}
if (settings.concurrency.some((c) => !Number.isInteger(c) || c < 1)) throw new Error("BENCH_CONCURRENCY: positive integers, comma-separated")

const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 7))
const ISSUER = "http://payroll.bench"
/** The archive's rate limit, lifted (bench/support.ts serviceEnv) but still counted on every request. */
const ARCHIVE_RATE_LIMIT = 1_000_000_000
const ARCHIVE_RATE_WINDOW_MS = 60_000
/** Every archive client has an address of its own, which the loopback proxy (the driver) names in X-Forwarded-For. */
const TRUSTED_PROXIES = "127.0.0.1"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---- what client c is, in both systems ----

/**
 * Client c of either system: the same wallet (so the same session `sub`), the same organization, batch and job
 * (the baseline's rows are copies of the service's), the same archive account; only the session token differs.
 */
interface Client {
  readonly wallet: Keypair
  readonly token: string
  /** The batch holding the payouts (the organization's newest). */
  readonly batchId: string
  /** The organization's batch-run job. */
  readonly jobId: string
  /** The account whose archived history the client reads, and how many events it has. */
  readonly holder: string
  readonly holderEvents: number
  /** The client's own address, as the trusted proxy reports it. */
  readonly forwardedFor: string
}

interface Subject extends Omit<Client, "token"> {
  readonly payees: ReadonlyArray<string>
}

// ---- the routes ----

interface Route {
  readonly label: string
  /** The path as the API names it: BENCH_ROUTES selects routes by it (a prefix) or by the label. */
  readonly template: string
  /** What the route reads, so that only what the selected routes need is made. */
  readonly reads: "directory" | "batches" | "job" | "archive"
  /** Sends the client's session (the archive is public). */
  readonly session: boolean
  readonly path: (client: Client) => string
  readonly headers?: (client: Client) => Readonly<Record<string, string>>
  /** The answer (a 200) is the one expected of this client. */
  readonly check: (client: Client, body: any) => boolean
}

const L = settings.limit
/** A keyset page of `total` items: `limit` of them (or all), and a cursor exactly when more follow. */
const isPage = (body: any, total: number) =>
  Array.isArray(body?.items) && body.items.length === Math.min(L, total) && (total > L) === (typeof body.nextCursor === "string")

const ROUTES: ReadonlyArray<Route> = [
  {
    label: "GET /me",
    template: "/me",
    reads: "directory",
    session: true,
    path: () => "/me",
    check: (client, body) => body?.sub === client.wallet.publicKey() && body?.roles?.[0] === "employer" && typeof body?.employer?.orgId === "string"
  },
  {
    label: `GET /contractors?limit=${L}`,
    template: "/contractors",
    reads: "directory",
    session: true,
    path: () => `/contractors?limit=${L}`,
    check: (_client, body) => isPage(body, directorySize())
  },
  {
    label: `GET /batches?limit=${L}`,
    template: "/batches",
    reads: "batches",
    session: true,
    path: () => `/batches?limit=${L}`,
    check: (client, body) => isPage(body, settings.batches) && body.items[0]?.id === client.batchId && body.items[0]?.payoutCount === settings.payouts
  },
  {
    label: `GET /batches/{id}/payouts?limit=${L}`,
    template: "/batches/{id}/payouts",
    reads: "batches",
    session: true,
    path: (client) => `/batches/${client.batchId}/payouts?limit=${L}`,
    check: (client, body) => isPage(body, settings.payouts) && body.items.every((p: any) => p?.batchId === client.batchId && p?.status === "ready")
  },
  {
    label: "GET /batch/{jobId}",
    template: "/batch/{jobId}",
    reads: "job",
    session: true,
    path: (client) => `/batch/${client.jobId}`,
    check: (client, body) =>
      body?.jobId === client.jobId && Array.isArray(body.results) && body.results.length === settings.jobItems &&
      body.results.every((r: any) => r?.status === "SUCCESS" && typeof r.hash === "string" && r.hash.length === 64)
  },
  {
    label: `GET /archive/tokens/{contractId}/accounts/{account}/events?limit=${L}`,
    template: "/archive/tokens/{contractId}/accounts/{account}/events",
    reads: "archive",
    session: false,
    path: (client) => `/archive/tokens/${CONTRACT}/accounts/${client.holder}/events?limit=${L}`,
    headers: (client) => ({ "x-forwarded-for": client.forwardedFor }),
    check: (client, body) =>
      Array.isArray(body?.events) && body.events.length === Math.min(L, client.holderEvents) && body.complete === true &&
      (client.holderEvents > L) === (typeof body.cursor === "string")
  }
]

/** BENCH_ROUTES: comma-separated labels (`GET /me`) or path prefixes (`/batches` selects both batch lists); default all. */
const selectRoutes = (spec: string): ReadonlyArray<Route> => {
  const wanted = spec.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (wanted.length === 0) return ROUTES
  const chosen = new Set<Route>()
  for (const want of wanted) {
    const path = want.replace(/^GET\s+/i, "")
    const matched = ROUTES.filter((r) =>
      r.label.toLowerCase() === want.toLowerCase() || r.template.startsWith(path) || r.label.slice("GET ".length).startsWith(path)
    )
    if (matched.length === 0) {
      throw new Error(`BENCH_ROUTES: "${want}" names no route; the routes are ${ROUTES.map((r) => `"${r.label}"`).join(", ")}`)
    }
    for (const route of matched) chosen.add(route)
  }
  return ROUTES.filter((r) => chosen.has(r))
}

const routes = selectRoutes(settings.routes)
const makes = {
  directory: routes.some((r) => r.reads === "directory"),
  batches: routes.some((r) => r.reads === "batches"),
  job: routes.some((r) => r.reads === "job"),
  archive: routes.some((r) => r.reads === "archive")
}
/** Every organization's directory: the payees of its batch (imported first), then the contractors of the list. */
const directorySize = () => (makes.directory ? settings.contractors : 0) + (makes.batches ? settings.payouts : 0)

// ---- the two systems ----

interface System {
  readonly name: "service" | "baseline"
  readonly child: Child
}

const startService = async (rpc: LoopbackRpc, db: BenchDatabase): Promise<System> => {
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  // e.g. BENCH_SERVICE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service alone
  const nodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS
  const child = await startChild(
    "service",
    "./service.ts",
    serviceEnv(rpc, db, { sponsor, contract: CONTRACT, issuer: ISSUER }, {
      TRUSTED_PROXIES,
      ARCHIVE_RATE_LIMIT: String(ARCHIVE_RATE_LIMIT),
      ARCHIVE_RATE_WINDOW: `${ARCHIVE_RATE_WINDOW_MS} millis`,
      ...(nodeOptions === undefined || nodeOptions === "" ? {} : { NODE_OPTIONS: nodeOptions })
    })
  )
  return { name: "service", child }
}

const startBaseline = async (db: BenchDatabase, jwtSecret: string): Promise<System> => {
  const child = await startChild("baseline", "./reads-baseline.ts", childEnv({
    ...(db.url === undefined ? { BASELINE_DATA_DIR: db.dataDir } : { BASELINE_DATABASE_URL: db.url }),
    BASELINE_JWT_SECRET: jwtSecret,
    BASELINE_JWT_ISSUER: ISSUER,
    BASELINE_ARCHIVE_CONTRACT: CONTRACT,
    BASELINE_ARCHIVE_RATE_LIMIT: String(ARCHIVE_RATE_LIMIT),
    BASELINE_ARCHIVE_RATE_WINDOW_MS: String(ARCHIVE_RATE_WINDOW_MS),
    BASELINE_TRUSTED_PROXIES: TRUSTED_PROXIES
  }))
  return { name: "baseline", child }
}

// ---- the service's data, made through its own routes ----

/** Runs `task` for each item, at most `width` at a time. */
const eachLimited = async <T, R>(items: ReadonlyArray<T>, width: number, task: (item: T, index: number) => Promise<R>): Promise<Array<R>> => {
  const results: Array<R> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await task(items[index]!, index)
    }
  }))
  return results
}

const importRows = async (agent: Agent, url: string, token: string, rows: ReadonlyArray<Record<string, string>>) => {
  const seeded = expectOk("bulk", await call(agent, url, "POST", "/contractors/bulk", { token, json: { rows } }))
  const imported: Array<{ readonly id: string; readonly status: string }> = seeded.imported ?? []
  if (imported.length !== rows.length) throw new Error(`bulk: ${imported.length} of ${rows.length} imported: ${JSON.stringify(seeded.errors)}`)
  return imported
}

/**
 * Client c's organization in the service: SEP-10 sign-in and POST /orgs; then, as the selected routes need them, the
 * batch's payees (addresses registered with the token, so `ready`) and the directory (POST /contractors/bulk), the
 * batches (POST /batches; the newest holds a payout per payee, POST /batches/{id}/payouts, and is locked, POST
 * /batches/{id}/ready) and a batch-run job of signed transfers (POST /batch). Answers the session and the ids.
 */
const seedOrganization = async (agent: Agent, url: string, rpc: LoopbackRpc, subject: Subject) => {
  const { wallet } = subject
  const token = await sep10SignIn(agent, url, wallet)
  await createOrg(agent, url, token)
  const tag = wallet.publicKey().slice(0, 12).toLowerCase()
  let payees: ReadonlyArray<{ readonly id: string; readonly status: string }> = []
  if (makes.batches) {
    payees = await importRows(agent, url, token, subject.payees.map((address, i) => ({
      name: `Payee ${i} of ${wallet.publicKey().slice(0, 8)}`,
      email: `p${i}.${tag}@example.com`,
      amount: `${200 + i}.25`,
      address
    })))
    const notReady = payees.find((p) => p.status !== "ready")
    if (notReady !== undefined) throw new Error(`a payee was imported ${notReady.status}, not ready`)
  }
  if (makes.directory && settings.contractors > 0) {
    await importRows(agent, url, token, Array.from({ length: settings.contractors }, (_, i) => ({
      name: `Contractor ${i} of ${wallet.publicKey().slice(0, 8)}`,
      email: `c${i}.${tag}@example.com`,
      amount: `${100 + i}.5`
    })))
  }
  let batchId = ""
  if (makes.batches) {
    for (let b = 1; b < settings.batches; b++) expectOk("batch", await call(agent, url, "POST", "/batches", { token, json: { name: `Draft ${b}` } }))
    const batch = expectOk("batch", await call(agent, url, "POST", "/batches", { token, json: { name: "November payroll" } }))
    batchId = batch.id as string
    expectOk("payouts", await call(agent, url, "POST", `/batches/${batchId}/payouts`, { token, json: { contractorIds: payees.map((p) => p.id) } }))
    expectOk("ready", await call(agent, url, "POST", `/batches/${batchId}/ready`, { token }))
  }
  let jobId = ""
  if (makes.job) {
    const base = rpc.account(wallet.publicKey())!.sequence
    const transactions = Array.from({ length: settings.jobItems }, (_, k) => ({
      signedXDR: transferXdr(wallet, base + BigInt(k), CONTRACT, Networks.TESTNET, 600)
    }))
    jobId = expectOk("POST /batch", await call(agent, url, "POST", "/batch", { token, json: { transactions } })).jobId as string
  }
  return { token, batchId, jobId }
}

/** Closes a ledger every 100 ms until every job has a result for each item; each result must be SUCCESS. */
const runJobs = async (rpc: LoopbackRpc, url: string, jobs: ReadonlyArray<{ readonly token: string; readonly jobId: string }>) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  try {
    const deadline = Date.now() + 180_000
    let pending = [...jobs]
    let polled = 0
    while (pending.length > 0) {
      if (Date.now() > deadline) throw new Error(`${pending.length} of ${jobs.length} batch-run jobs incomplete after 180 s`)
      rpc.advanceLedger()
      await sleep(100)
      if (Date.now() - polled < 500) continue
      polled = Date.now()
      const bodies = await eachLimited(pending, 8, async (job) => expectOk("GET /batch", await call(agent, url, "GET", `/batch/${job.jobId}`, { token: job.token })))
      pending = pending.filter((_, k) => (bodies[k].results?.length ?? 0) < settings.jobItems)
      const failed = bodies.flatMap((b) => b.results ?? []).find((r: any) => r.status !== "SUCCESS")
      if (failed !== undefined) throw new Error(`a batch-run item did not succeed: ${JSON.stringify(failed)}`)
    }
  } finally {
    agent.destroy()
  }
}

/**
 * The archive's data: the token's events among the clients' archive accounts, in turn a `transfer`, a `deposit` and a
 * `withdraw` (each account is the first address of about half of its `BENCH_READS_EVENTS` events and the second of the
 * other half; a `transfer` is also a reaction the service follows once ingested), 100 a ledger, published by the
 * loopback RPC and ingested by the service as Stellar RPC's would be. Answers each account's count; returns once the
 * archive holds them all.
 */
const publishHistory = async (rpc: LoopbackRpc, url: string, holders: ReadonlyArray<string>): Promise<Map<string, number>> => {
  const accounts = holders.length >= 2 ? holders : [...holders, Keypair.random().publicKey()]
  const n = accounts.length
  const counts = new Map<string, number>()
  const bytes = (size: number) => new Uint8Array(randomBytes(size))
  let published = 0
  for (let k = 0; k < Math.ceil(settings.events / 2); k++) {
    for (let a = 0; a < n; a++) {
      const from = accounts[a]!
      const to = accounts[(a + 1 + (k % (n - 1))) % n]!
      const amount = BigInt(1 + k) * 10_000_000n
      rpc.publishEvents(CONTRACT, [
        k % 3 === 0
          ? tokenEvents.transfer(from, to, {
            r_e_point: bytes(64),
            v_tilde: bytes(32),
            sigma: bytes(32),
            b_tilde: bytes(32),
            v_tilde_aud_r: bytes(32),
            r_tilde_aud_r: bytes(32),
            v_tilde_aud_s: bytes(32),
            b_tilde_aud_s: bytes(32)
          })
          : k % 3 === 1
          ? tokenEvents.deposit(from, to, amount)
          : tokenEvents.withdraw(from, to, amount, { r_e_point: bytes(64), sigma: bytes(32), b_tilde: bytes(32), b_tilde_aud_s: bytes(32) })
      ])
      for (const account of [from, to]) counts.set(account, (counts.get(account) ?? 0) + 1)
      if (++published % 100 === 0) rpc.advanceLedger()
    }
  }
  const last = rpc.advanceLedger()
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    const deadline = Date.now() + 120_000
    for (;;) {
      const status = expectOk("archive status", await call(agent, url, "GET", "/archive/status"))
      if ((status.ingestedThrough ?? 0) >= last) break
      if (Date.now() > deadline) throw new Error(`the archive ingested through ${status.ingestedThrough}, not ${last}, after 120 s`)
      await sleep(200)
    }
  } finally {
    agent.destroy()
  }
  return counts
}

/** Waits (at most a minute) until the service has nothing left to do in the background: no job, transfer or reaction. */
const quiesce = async (db: pg.Client): Promise<string | undefined> => {
  const deadline = Date.now() + 60_000
  for (;;) {
    const { rows: [left] } = await db.query(`
      SELECT (SELECT count(*) FROM batch_jobs WHERE state <> 'done')::int AS jobs,
        (SELECT count(*) FROM submissions WHERE state IN ('pending', 'submitted'))::int AS transfers,
        (SELECT count(*) FROM archive_reactions)::int AS reactions`)
    if (left.jobs + left.transfers + left.reactions === 0) return undefined
    if (Date.now() > deadline) return `still in the service's background after a minute: ${JSON.stringify(left)}`
    await sleep(250)
  }
}

// ---- the baseline's data: the service's rows, copied ----

/** The tables the baseline reads, parents first. */
const COPIED = [
  "orgs",
  "org_members",
  "contractors",
  "invites",
  "batches",
  "payouts",
  "batch_jobs",
  "batch_job_results",
  "submissions",
  "archive_events",
  "archive_event_accounts",
  "archive_ranges"
]

const columnsOf = async (db: pg.Client, table: string) =>
  (await db.query<{ name: string; type: string; nullable: string; default: string | null }>(
    `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS default
     FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY column_name`,
    [table]
  )).rows

const indexesOf = async (db: pg.Client, table: string) =>
  (await db.query<{ def: string }>(
    `SELECT regexp_replace(indexdef, '^CREATE (UNIQUE )?INDEX \\S+ ', 'CREATE \\1INDEX ') AS def
     FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1 ORDER BY 1`,
    [table]
  )).rows.map((r) => r.def)

/** Where the baseline's tables differ from the service's (columns, indexes, persistence): none, normally. */
const schemaDifferences = async (service: pg.Client, baseline: pg.Client): Promise<Array<string>> => {
  const differences: Array<string> = []
  for (const table of [...COPIED, "rate_limits"]) {
    const [sc, bc] = [await columnsOf(service, table), await columnsOf(baseline, table)]
    if (JSON.stringify(sc) !== JSON.stringify(bc)) differences.push(`${table} columns: service ${JSON.stringify(sc)}; baseline ${JSON.stringify(bc)}`)
    const [si, bi] = [await indexesOf(service, table), await indexesOf(baseline, table)]
    if (JSON.stringify(si) !== JSON.stringify(bi)) differences.push(`${table} indexes: service ${si.join("; ")} / baseline ${bi.join("; ")}`)
    const persistence = `SELECT relpersistence FROM pg_class WHERE oid = $1::regclass`
    const [sp, bp] = [(await service.query(persistence, [table])).rows[0]?.relpersistence, (await baseline.query(persistence, [table])).rows[0]?.relpersistence]
    if (sp !== bp) differences.push(`${table}: relpersistence ${sp} in the service, ${bp} in the baseline`)
  }
  return differences
}

/**
 * Copies the service's rows of COPIED into the baseline's tables, in the service's physical order (so the heap is
 * laid out alike), in statements of at most ~8 MB of JSON. Answers the rows copied per table.
 */
const copyRows = async (service: pg.Client, baseline: pg.Client): Promise<Array<string>> => {
  const copied: Array<string> = []
  for (const table of COPIED) {
    const columns = (await columnsOf(baseline, table)).map((c) => c.name).join(", ")
    const { rows } = await service.query<{ j: string }>(`SELECT row_to_json(t)::text AS j FROM (SELECT ${columns} FROM ${table} ORDER BY ctid) t`)
    let chunk: Array<string> = []
    let size = 0
    const flush = async () => {
      if (chunk.length === 0) return
      await baseline.query(
        `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${table}, $1::json)`,
        [`[${chunk.join(",")}]`]
      )
      chunk = []
      size = 0
    }
    for (const { j } of rows) {
      chunk.push(j)
      size += j.length
      if (size > 8_000_000) await flush()
    }
    await flush()
    copied.push(`${table} ${rows.length}`)
  }
  return copied
}

// ---- load ----

interface Run {
  readonly seconds: number
  readonly ok: number
  readonly errors: number
  readonly firstError: string | undefined
  readonly sorted: Array<number>
  readonly systemCpu: number // % of one core
  readonly driverCpu: number
}

const get = (agent: Agent, system: System, route: Route, client: Client) =>
  call(agent, system.child.url, "GET", route.path(client), {
    ...(route.session ? { token: client.token } : {}),
    ...(route.headers === undefined ? {} : { headers: route.headers(client) })
  })

/** `clients.length` concurrent clients, each sending its next request as soon as the previous one answered. */
const closedLoop = async (system: System, route: Route, clients: ReadonlyArray<Client>, seconds: number): Promise<Run> => {
  const agent = new Agent({ keepAlive: true, maxSockets: clients.length })
  const latencies: Array<number> = []
  let errors = 0
  let firstError: string | undefined
  const systemCpu0 = await system.child.cpuMicros()
  const driverCpu0 = process.cpuUsage()
  const started = performance.now()
  const stopAt = started + seconds * 1000
  await Promise.all(clients.map(async (client) => {
    while (performance.now() < stopAt) {
      const sent = performance.now()
      try {
        const reply = await get(agent, system, route, client)
        if (reply.status === 200 && route.check(client, reply.body)) {
          latencies.push(performance.now() - sent)
          continue
        }
        errors += 1
        firstError ??= `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`
      } catch (error) {
        errors += 1
        firstError ??= String(error)
      }
    }
  }))
  const elapsedMs = performance.now() - started
  const driverCpu = process.cpuUsage(driverCpu0)
  const systemCpu = (await system.child.cpuMicros()) - systemCpu0
  agent.destroy()
  return {
    seconds: elapsedMs / 1000,
    ok: latencies.length,
    errors,
    firstError,
    sorted: ascending(latencies),
    systemCpu: (systemCpu / 1000 / elapsedMs) * 100,
    driverCpu: ((driverCpu.user + driverCpu.system) / 1000 / elapsedMs) * 100
  }
}

/** JSON with every object's keys sorted: two answers are alike when these are equal. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

/** The answer's fields, and its first item's: what the "answers alike" line shows. */
const shape = (body: any) => {
  const keys = (value: unknown) => Object.keys(value ?? {}).sort().join(",")
  const first = body?.items?.[0] ?? body?.events?.[0] ?? body?.results?.[0]
  return first === undefined ? keys(body) : `${keys(body)} / ${keys(first)}`
}

// ---- main ----

const maxClients = Math.max(...settings.concurrency)
const cpu = cpus()
console.log(`read-route benchmark, ${new Date().toISOString()}`)
console.log(`node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"})`)
console.log(
  `database: ${
    settings.db === "embedded"
      ? "embedded PostgreSQL, a private cluster per system (src/EmbeddedPostgres/Embedded.ts), pools of 10"
      : `PostgreSQL server (${new URL(settings.serverUrl).host}), a fresh database per system, pools of 10`
  }`
)
console.log(
  `service (src/Server/App.ts AppLive) and baseline (bench/reads-baseline.ts) each in a child process; ${maxClients} employers, ` +
    `each with an organization` + (directorySize() > 0 ? ` of ${directorySize()} contractors` : "") +
    (makes.batches ? `, ${settings.batches} batches (the newest with ${settings.payouts} payouts)` : "") +
    (makes.job ? `, a batch-run job of ${settings.jobItems} transfers` : "") +
    (makes.archive ? `; ${maxClients} archive accounts of about ${settings.events} events each` : "") +
    `; made through the service's routes, copied to the baseline`
)
console.log(`closed loop, ${settings.warmup} s warm-up + ${settings.seconds} s measured per route, system and concurrency`)
console.log("")

const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
deployToken(rpc, CONTRACT)
const databases: Array<BenchDatabase> = []
const systems: Array<System> = []
try {
  const serverUrl = settings.db === "postgres" ? settings.serverUrl : undefined
  const serviceDb = await freshDatabase("reads_service", serverUrl)
  databases.push(serviceDb)
  const service = await startService(rpc, serviceDb)
  systems.push(service)
  const baselineDb = await freshDatabase("reads_baseline", serverUrl)
  databases.push(baselineDb)
  const jwtSecret = randomBytes(32).toString("base64url")
  const baseline = await startBaseline(baselineDb, jwtSecret)
  systems.push(baseline)

  // ---- the service's data, through its routes ----
  const setupStarted = performance.now()
  const subjects: Array<Subject> = Array.from({ length: maxClients }, (_, c) => {
    const wallet = Keypair.random()
    addWallet(rpc, CONTRACT, wallet)
    const payees = makes.batches ? Array.from({ length: settings.payouts }, () => Keypair.random().publicKey()) : []
    for (const payee of payees) rpc.registerConfidential(CONTRACT, payee)
    return {
      wallet,
      payees,
      batchId: "",
      jobId: "",
      holder: Keypair.random().publicKey(),
      holderEvents: 0,
      forwardedFor: `10.${(c >> 16) & 255}.${(c >> 8) & 255}.${c & 255}`
    }
  })
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const seeded = await eachLimited(subjects, 8, (subject) => seedOrganization(agent, service.child.url, rpc, subject))
  agent.destroy()
  const seconds = () => fixed((performance.now() - setupStarted) / 1000, 1)
  process.stderr.write(`  service: ${maxClients} organizations made in ${seconds()} s\n`)
  if (makes.job) {
    await runJobs(rpc, service.child.url, seeded)
    process.stderr.write(`  service: ${maxClients} batch-run jobs of ${settings.jobItems} transfers done, ${seconds()} s\n`)
  }
  const counts = makes.archive ? await publishHistory(rpc, service.child.url, subjects.map((s) => s.holder)) : new Map<string, number>()
  if (makes.archive) process.stderr.write(`  service: archive histories ingested, ${seconds()} s\n`)

  // ---- the baseline's: the same rows ----
  const serviceSql = new pg.Client(await databaseConnection(serviceDb))
  // The baseline's tables are in a database of its own on an embedded cluster (bench/baseline-http.ts openDatabase).
  const baselineSql = new pg.Client(await databaseConnection(baselineDb, "baseline"))
  await serviceSql.connect()
  await baselineSql.connect()
  let copied: Array<string>
  let differences: Array<string>
  let restless: string | undefined
  try {
    restless = await quiesce(serviceSql)
    copied = await copyRows(serviceSql, baselineSql)
    differences = await schemaDifferences(serviceSql, baselineSql)
    // Both databases vacuumed and analyzed: the same statistics and visibility for the planner and the executor.
    await serviceSql.query("VACUUM (ANALYZE)")
    await baselineSql.query("VACUUM (ANALYZE)")
  } finally {
    await serviceSql.end()
    await baselineSql.end()
  }
  process.stderr.write(`  baseline: copied (${copied.join(", ")}), both vacuumed and analyzed, ${seconds()} s\n`)
  if (restless !== undefined) console.log(`note: ${restless}`)
  for (const difference of differences) console.log(`SCHEMA DIFFERS: ${difference}`)

  const clients = new Map<System, Array<Client>>([
    [service, subjects.map((s, c) => ({ ...s, ...seeded[c]!, holderEvents: counts.get(s.holder) ?? 0 }))],
    [baseline, subjects.map((s, c) => ({ ...s, ...seeded[c]!, token: signJwt(jwtSecret, ISSUER, s.wallet.publicKey()), holderEvents: counts.get(s.holder) ?? 0 }))]
  ])

  // The two systems must answer alike (the same JSON, keys sorted), and as expected, for client 0 on every route.
  const check = new Agent({ keepAlive: false })
  try {
    for (const route of routes) {
      const answers = await Promise.all(systems.map(async (system) => {
        const client = clients.get(system)![0]!
        const body = expectOk(`${system.name} ${route.label}`, await get(check, system, route, client))
        if (!route.check(client, body)) throw new Error(`${system.name} ${route.label}: not the expected answer: ${JSON.stringify(body).slice(0, 500)}`)
        return body
      }))
      const [s, b] = answers.map(canonical)
      console.log(
        s === b
          ? `${route.label} answers alike: ${shape(answers[0])}`
          : `${route.label} answers DIFFER:\n  service  ${s!.slice(0, 600)}\n  baseline ${b!.slice(0, 600)}`
      )
    }
  } finally {
    check.destroy()
  }
  console.log("")

  for (const route of routes) {
    const rows: Array<Array<string>> = []
    const notes: Array<string> = []
    for (const concurrency of settings.concurrency) {
      const results = new Map<System, Run>()
      for (const system of systems) {
        const own = clients.get(system)!.slice(0, concurrency)
        if (settings.warmup > 0) await closedLoop(system, route, own, settings.warmup)
        const run = await closedLoop(system, route, own, settings.seconds)
        results.set(system, run)
        if (run.errors > 0) notes.push(`  ${system.name} at ${concurrency}: ${run.errors} errors, the first: ${run.firstError}`)
      }
      const s = results.get(service)!
      const b = results.get(baseline)!
      const rps = (run: Run) => run.ok / run.seconds
      const lat = (run: Run) => `${fixed(percentile(run.sorted, 50), 2)} / ${fixed(percentile(run.sorted, 99), 2)}`
      rows.push([
        String(concurrency),
        fixed(rps(s)),
        fixed(rps(b)),
        fixed(rps(s) / rps(b), 2),
        lat(s),
        lat(b),
        `${s.errors} / ${b.errors}`,
        `${fixed(s.systemCpu)} / ${fixed(s.driverCpu)}`,
        `${fixed(b.systemCpu)} / ${fixed(b.driverCpu)}`
      ])
    }
    console.log(`== ${route.label}`)
    console.log(table(
      [
        "concurrency",
        "service rps",
        "baseline rps",
        "ratio",
        "service p50 / p99 ms",
        "baseline p50 / p99 ms",
        "errors svc / base",
        "cpu% svc / driver",
        "cpu% base / driver"
      ],
      rows
    ))
    if (notes.length > 0) console.log(["errors:", ...notes].join("\n"))
    console.log("")
  }
} finally {
  for (const system of systems) await system.child.stop()
  await rpc.close()
  for (const db of databases) await db.drop()
}
