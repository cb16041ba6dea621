// Read-route benchmark: GET /me and GET /contractors?limit=50 of the service against a framework-free baseline
// (bench/reads-baseline.ts: node:http + pg doing the same queries).
//
//   BENCH_DB=postgres node_modules/.bin/node bench/reads.ts      (see bench/README.md for the settings and the figures)
//
// This process is the driver: it holds the loopback RPC (the service's sign-in needs it) and the clients. The service
// (bench/service.ts) and the baseline each run in a child process of their own, with a fresh database of the same kind.
import { Keypair, StrKey } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import type { BenchDatabase, System } from "./support.ts"
import { ascending, call, childEnv, createOrg, envNumber, expectOk, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, signJwt, startChild, table } from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)

const settings = {
  db: dbKind,
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  concurrency: (process.env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map((s) => Number(s.trim())),
  seconds: envNumber("BENCH_SECONDS", 5),
  warmup: envNumber("BENCH_WARMUP_SECONDS", 1),
  contractors: envNumber("BENCH_READS_CONTRACTORS", 200),
  limit: envNumber("BENCH_READS_LIMIT", 50)
}
if (settings.concurrency.some((c) => !Number.isInteger(c) || c < 1)) throw new Error("BENCH_CONCURRENCY: positive integers, comma-separated")
if (!Number.isInteger(settings.limit) || settings.limit < 1 || settings.limit > 100) throw new Error("BENCH_READS_LIMIT: 1 to 100")

const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 7))
const ISSUER = "http://payroll.bench"

// ---- the two systems ----

const startService = async (rpc: LoopbackRpc, db: BenchDatabase): Promise<System> => {
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  // e.g. BENCH_SERVICE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service alone
  const nodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS
  const child = await startChild(
    "service",
    "./service.ts",
    serviceEnv(rpc, db, { sponsor, contract: CONTRACT, issuer: ISSUER }, nodeOptions === undefined || nodeOptions === "" ? {} : { NODE_OPTIONS: nodeOptions })
  )
  const enroll = async (agent: Agent, wallet: Keypair) => {
    rpc.setAccount({ id: wallet.publicKey() })
    const token = await sep10SignIn(agent, child.url, wallet)
    await createOrg(agent, child.url, token)
    return token
  }
  return { name: "service", child, enroll }
}

const startBaseline = async (db: BenchDatabase): Promise<System> => {
  const jwtSecret = randomBytes(32).toString("base64url")
  const child = await startChild("baseline", "./reads-baseline.ts", childEnv({
    ...(db.url === undefined ? { BASELINE_DATA_DIR: db.dataDir } : { BASELINE_DATABASE_URL: db.url }),
    BASELINE_JWT_SECRET: jwtSecret,
    BASELINE_JWT_ISSUER: ISSUER
  }))
  const enroll = async (agent: Agent, wallet: Keypair) => {
    const token = signJwt(jwtSecret, ISSUER, wallet.publicKey())
    await createOrg(agent, child.url, token)
    return token
  }
  return { name: "baseline", child, enroll }
}

/** The directory both systems get: name, email and amount (no address, so no registration lookup); status `invited`. */
const directory = (wallet: Keypair) =>
  Array.from({ length: settings.contractors }, (_, i) => ({
    name: `Contractor ${i} of ${wallet.publicKey().slice(0, 8)}`,
    email: `c${i}.${wallet.publicKey().slice(0, 12).toLowerCase()}@example.com`,
    amount: `${100 + i}.5`
  }))

interface Client {
  readonly wallet: Keypair
  readonly token: string
}

/** `count` fresh wallets, each an employer of its own organization with `settings.contractors` contractors. */
const enrollClients = async (system: System, count: number): Promise<Array<Client>> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const clients: Array<Client> = []
  try {
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, () => Keypair.random())
      clients.push(...await Promise.all(batch.map(async (wallet) => {
        const token = await system.enroll(agent, wallet)
        const seeded = expectOk("bulk", await call(agent, system.child.url, "POST", "/contractors/bulk", { token, json: { rows: directory(wallet) } }))
        const imported = typeof seeded.imported === "number" ? seeded.imported : seeded.imported?.length
        if (imported !== settings.contractors) throw new Error(`bulk: ${imported} of ${settings.contractors} imported: ${JSON.stringify(seeded.errors)}`)
        return { wallet, token }
      })))
    }
  } finally {
    agent.destroy()
  }
  return clients
}

// ---- load ----

interface Route {
  readonly label: string
  readonly path: string
  /** The answer is the one expected of this client. */
  readonly check: (client: Client, body: any) => boolean
}

const ROUTES: ReadonlyArray<Route> = [
  {
    label: "GET /me",
    path: "/me",
    check: (client, body) => body?.sub === client.wallet.publicKey() && body?.roles?.[0] === "employer" && typeof body?.employer?.orgId === "string"
  },
  {
    label: `GET /contractors?limit=${settings.limit}`,
    path: `/contractors?limit=${settings.limit}`,
    check: (_client, body) =>
      Array.isArray(body?.items) && body.items.length === Math.min(settings.limit, settings.contractors) &&
      (settings.contractors > settings.limit) === (typeof body.nextCursor === "string")
  }
]

interface Run {
  readonly seconds: number
  readonly ok: number
  readonly errors: number
  readonly firstError: string | undefined
  readonly sorted: Array<number>
  readonly systemCpu: number // % of one core
  readonly driverCpu: number
}

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
        const reply = await call(agent, system.child.url, "GET", route.path, { token: client.token })
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

// ---- main ----

const cpu = cpus()
console.log(`read-route benchmark, ${new Date().toISOString()}`)
console.log(`node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"})`)
console.log(
  `database: ${
    settings.db === "embedded"
      ? "embedded PostgreSQL, a private cluster per system (src/Sql/Embedded.ts), pools of 10"
      : `PostgreSQL server (${new URL(settings.serverUrl).host}), a fresh database per system, pools of 10`
  }`
)
console.log(
  `service (src/App.ts AppLive) and baseline (bench/reads-baseline.ts) each in a child process; ` +
    `${Math.max(...settings.concurrency)} employers per system, each with its own organization of ${settings.contractors} contractors`
)
console.log(`closed loop, ${settings.warmup} s warm-up + ${settings.seconds} s measured per route, system and concurrency`)
console.log("")

const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 0 })
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
  const baseline = await startBaseline(baselineDb)
  systems.push(baseline)
  const maxClients = Math.max(...settings.concurrency)
  const clients = new Map<System, Array<Client>>()
  for (const system of systems) {
    const started = performance.now()
    clients.set(system, await enrollClients(system, maxClients))
    process.stderr.write(`  ${system.name}: ${maxClients} employers x ${settings.contractors} contractors in ${fixed((performance.now() - started) / 1000, 1)} s\n`)
  }

  // The two systems must answer alike: the same fields in /me and in a directory page's items.
  const shapes = await Promise.all(systems.map(async (system) => {
    const agent = new Agent({ keepAlive: false })
    try {
      const [client] = clients.get(system)!
      const shape = (value: unknown) => Object.keys(value ?? {}).sort().join(",")
      return await Promise.all(ROUTES.map(async (route) => {
        const body = expectOk(route.label, await call(agent, system.child.url, "GET", route.path, { token: client!.token }))
        return route.path === "/me" ? shape(body) : `${shape(body)} / ${shape(body.items?.[0])}`
      }))
    } finally {
      agent.destroy()
    }
  }))
  ROUTES.forEach((route, r) => {
    const [service, baseline] = shapes.map((s) => s[r])
    console.log(`${route.label} answers ${service === baseline ? "alike" : "DIFFER"}: ${service === baseline ? service : `service ${service}; baseline ${baseline}`}`)
  })
  console.log("")

  for (const route of ROUTES) {
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
