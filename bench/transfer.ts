// POST /transfer benchmark: the service against a framework-free baseline, on the loopback Stellar RPC.
//
//   node_modules/.bin/node bench/transfer.ts            (see bench/README.md for the settings and the figures)
//
// This process is the driver: it holds the loopback RPC and the clients. The service (bench/service.ts) and the
// baseline (bench/baseline.ts) each run in a child process of their own, with a fresh database of the same kind.
import { Keypair, Networks, StrKey } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import type { BenchDatabase, System } from "./support.ts"
import { addWallet, ascending, call, childEnv, createOrg, deployToken, envNumber, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, signJwt, startChild, table, transferXdr } from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)

const settings = {
  db: dbKind,
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  concurrency: (process.env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map((s) => Number(s.trim())),
  seconds: envNumber("BENCH_SECONDS", 10),
  warmup: envNumber("BENCH_WARMUP_SECONDS", 2),
  /** Instant phase: 0 closes a ledger the moment sendTransaction accepts a transaction; > 0 is a ledger timer. */
  instantLedgerMs: envNumber("BENCH_LEDGER_MS", 0),
  slowLedgerMs: envNumber("BENCH_SLOW_LEDGER_MS", 5000),
  slowClients: envNumber("BENCH_SLOW_CLIENTS", 16),
  slowTransfers: envNumber("BENCH_SLOW_TRANSFERS", 2)
}
if (settings.concurrency.some((c) => !Number.isInteger(c) || c < 1)) throw new Error("BENCH_CONCURRENCY: positive integers, comma-separated")

const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 7))
const ISSUER = "http://payroll.bench"

// ---- the two systems ----

const startService = async (rpc: LoopbackRpc, db: BenchDatabase): Promise<System> => {
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  const child = await startChild(
    "service",
    "./service.ts",
    serviceEnv(rpc, db, { sponsor, contract: CONTRACT, issuer: ISSUER }, { SPONSOR_QUOTA: "1000000000" })
  )
  const enroll = async (agent: Agent, wallet: Keypair) => {
    const token = await sep10SignIn(agent, child.url, wallet)
    await createOrg(agent, child.url, token)
    return token
  }
  return { name: "service", child, enroll }
}

const startBaseline = async (rpc: LoopbackRpc, db: BenchDatabase): Promise<System> => {
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  const jwtSecret = randomBytes(32).toString("base64url")
  const child = await startChild("baseline", "./baseline.ts", childEnv({
    ...(db.url === undefined ? { BASELINE_DATA_DIR: db.dataDir } : { BASELINE_DATABASE_URL: db.url }),
    BASELINE_RPC_URL: rpc.url,
    BASELINE_NETWORK_PASSPHRASE: Networks.TESTNET,
    BASELINE_JWT_SECRET: jwtSecret,
    BASELINE_JWT_ISSUER: ISSUER,
    BASELINE_SPONSOR_SECRET: sponsor.secret(),
    BASELINE_ALLOWED_CONTRACTS: CONTRACT,
    BASELINE_MAX_INNER_FEE: "10000000",
    BASELINE_QUOTA: "1000000000",
    BASELINE_QUOTA_WINDOW_MS: String(24 * 3600 * 1000)
  }))
  const enroll = async (agent: Agent, wallet: Keypair) => {
    const token = signJwt(jwtSecret, ISSUER, wallet.publicKey())
    await createOrg(agent, child.url, token)
    return token
  }
  return { name: "baseline", child, enroll }
}

interface Client {
  readonly wallet: Keypair
  readonly token: string
}

/** `count` fresh wallets, each an account on the loopback ledger and an employer of its own organization. */
const enrollClients = async (rpc: LoopbackRpc, system: System, count: number): Promise<Array<Client>> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const clients: Array<Client> = []
  try {
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, () => Keypair.random())
      for (const wallet of batch) addWallet(rpc, CONTRACT, wallet)
      clients.push(...await Promise.all(batch.map(async (wallet) => ({ wallet, token: await system.enroll(agent, wallet) }))))
    }
  } finally {
    agent.destroy()
  }
  return clients
}

// ---- load ----

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Sample {
  readonly hash: string
  readonly latencyMs: number
  /** Wall clock (Date.now) when the whole response had arrived. */
  readonly arrivedAt: number
}

/** What a run's clients tally as they go. */
interface Tally {
  readonly samples: Array<Sample>
  errors: number
  firstError: string | undefined
}

const newTally = (): Tally => ({ samples: [], errors: 0, firstError: undefined })

/** One transfer: the next transaction of the client's wallet, posted and awaited. */
const transferOnce = async (rpc: LoopbackRpc, agent: Agent, system: System, client: Client, outcome: Tally) => {
  const account = rpc.account(client.wallet.publicKey())
  if (account === undefined) throw new Error("the wallet's account vanished from the loopback ledger")
  const signedXDR = transferXdr(client.wallet, account.sequence, CONTRACT)
  const started = performance.now()
  try {
    const reply = await call(agent, system.child.url, "POST", "/transfer", { token: client.token, json: { signedXDR } })
    const latencyMs = performance.now() - started
    if (reply.status === 200 && reply.body?.status === "SUCCESS" && typeof reply.body.hash === "string") {
      outcome.samples.push({ hash: reply.body.hash, latencyMs, arrivedAt: Date.now() })
      return
    }
    outcome.errors += 1
    outcome.firstError ??= `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`
  } catch (error) {
    outcome.errors += 1
    outcome.firstError ??= String(error)
    await sleep(50)
  }
}

interface Run extends Tally {
  readonly seconds: number
  /** JSON-RPC requests the loopback received during the run, per successful transfer. */
  readonly rpcCalls: number
  readonly sorted: Array<number>
  readonly systemCpu: number // % of one core
  readonly driverCpu: number
}

/** `clients.length` concurrent clients, each sending its next transfer as soon as the previous one answered. */
const closedLoop = async (rpc: LoopbackRpc, system: System, clients: ReadonlyArray<Client>, seconds: number): Promise<Run> => {
  const agent = new Agent({ keepAlive: true, maxSockets: clients.length })
  const outcome = newTally()
  const systemCpu0 = await system.child.cpuMicros()
  const driverCpu0 = process.cpuUsage()
  rpc.resetCalls()
  const started = performance.now()
  const stopAt = started + seconds * 1000
  await Promise.all(clients.map(async (client) => {
    while (performance.now() < stopAt) await transferOnce(rpc, agent, system, client, outcome)
  }))
  const elapsedMs = performance.now() - started
  const driverCpu = process.cpuUsage(driverCpu0)
  const systemCpu = (await system.child.cpuMicros()) - systemCpu0
  agent.destroy()
  const rpcCalls = rpc.calls.length / outcome.samples.length
  rpc.resetCalls() // the loopback keeps every request it receives
  return {
    ...outcome,
    seconds: elapsedMs / 1000,
    rpcCalls,
    sorted: ascending(outcome.samples.map((s) => s.latencyMs)),
    systemCpu: (systemCpu / 1000 / elapsedMs) * 100,
    driverCpu: ((driverCpu.user + driverCpu.system) / 1000 / elapsedMs) * 100
  }
}

/** Instant ledgers without a timer: every accepted transaction is on a closed ledger before sendTransaction answers. */
const closeOnAccept = (rpc: LoopbackRpc) => {
  const send = rpc.methods.get("sendTransaction")
  if (send === undefined) throw new Error("the loopback RPC has no sendTransaction")
  rpc.methods.set("sendTransaction", (params) => {
    const answer = send(params) as { readonly status?: unknown }
    if (answer.status === "PENDING") rpc.advanceLedger()
    return answer
  })
}

// ---- phases ----

const instantPhase = async () => {
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: settings.instantLedgerMs })
  deployToken(rpc, CONTRACT)
  if (settings.instantLedgerMs === 0) closeOnAccept(rpc)
  const databases: Array<BenchDatabase> = []
  const systems: Array<System> = []
  try {
    const maxClients = Math.max(...settings.concurrency)
    const serviceDb = await freshDatabase("service", settings.db === "postgres" ? settings.serverUrl : undefined)
    databases.push(serviceDb)
    const service = await startService(rpc, serviceDb)
    systems.push(service)
    const baselineDb = await freshDatabase("baseline", settings.db === "postgres" ? settings.serverUrl : undefined)
    databases.push(baselineDb)
    const baseline = await startBaseline(rpc, baselineDb)
    systems.push(baseline)
    const clients = new Map<System, Array<Client>>()
    for (const system of systems) clients.set(system, await enrollClients(rpc, system, maxClients))

    const rows: Array<Array<string>> = []
    const notes: Array<string> = []
    for (const concurrency of settings.concurrency) {
      const results = new Map<System, Run>()
      for (const system of systems) {
        const own = clients.get(system)!.slice(0, concurrency)
        if (settings.warmup > 0) await closedLoop(rpc, system, own, settings.warmup)
        const run = await closedLoop(rpc, system, own, settings.seconds)
        results.set(system, run)
        if (run.errors > 0) notes.push(`  ${system.name} at ${concurrency}: ${run.errors} errors, the first: ${run.firstError}`)
        process.stderr.write(`  ${system.name} x${concurrency}: ${run.samples.length} transfers\n`)
      }
      const s = results.get(service)!
      const b = results.get(baseline)!
      const tps = (run: Run) => run.samples.length / run.seconds
      const lat = (run: Run) => `${fixed(percentile(run.sorted, 50), 1)} / ${fixed(percentile(run.sorted, 99), 1)}`
      rows.push([
        String(concurrency),
        fixed(tps(s), 1),
        fixed(tps(b), 1),
        fixed(tps(s) / tps(b), 2),
        lat(s),
        lat(b),
        `${s.errors} / ${b.errors}`,
        `${fixed(s.rpcCalls, 2)} / ${fixed(b.rpcCalls, 2)}`,
        `${fixed(s.systemCpu)} / ${fixed(s.driverCpu)}`,
        `${fixed(b.systemCpu)} / ${fixed(b.driverCpu)}`
      ])
    }
    console.log(table(
      [
        "concurrency",
        "service tps",
        "baseline tps",
        "ratio",
        "service p50 / p99 ms",
        "baseline p50 / p99 ms",
        "errors svc / base",
        "rpc calls/transfer svc / base",
        "cpu% svc / driver",
        "cpu% base / driver"
      ],
      rows
    ))
    if (notes.length > 0) console.log(["errors:", ...notes].join("\n"))
  } finally {
    for (const system of systems) await system.child.stop()
    await rpc.close()
    for (const db of databases) await db.drop()
  }
}

interface SlowResult {
  readonly transfers: number
  readonly errors: number
  readonly firstError: string | undefined
  readonly afterClose: Array<number>
  readonly latency: Array<number>
  readonly calls: Map<string, number>
  readonly seconds: number
}

/** Each client sends `perClient` transfers, each after a random pause within one ledger interval. */
const slowRun = async (rpc: LoopbackRpc, system: System, clients: ReadonlyArray<Client>, perClient: number): Promise<SlowResult> => {
  const agent = new Agent({ keepAlive: true, maxSockets: clients.length })
  const outcome = newTally()
  rpc.resetCalls()
  const started = performance.now()
  await Promise.all(clients.map(async (client) => {
    for (let i = 0; i < perClient; i++) {
      await sleep(Math.random() * settings.slowLedgerMs)
      await transferOnce(rpc, agent, system, client, outcome)
    }
  }))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  const calls = new Map<string, number>()
  for (const { method } of rpc.calls) calls.set(method, (calls.get(method) ?? 0) + 1)
  const afterClose = outcome.samples.map((sample) => {
    const ledger = rpc.transaction(sample.hash)?.ledger
    const closedAt = ledger === undefined ? undefined : rpc.closeTimeOf(ledger)
    if (closedAt === undefined) throw new Error(`no ledger close known for ${sample.hash}`)
    return sample.arrivedAt - closedAt
  })
  return {
    transfers: outcome.samples.length,
    errors: outcome.errors,
    firstError: outcome.firstError,
    afterClose: ascending(afterClose),
    latency: ascending(outcome.samples.map((s) => s.latencyMs)),
    calls,
    seconds
  }
}

const slowPhase = async () => {
  const rpc = await LoopbackRpc.start({ ledgerIntervalMs: settings.slowLedgerMs })
  deployToken(rpc, CONTRACT)
  const databases: Array<BenchDatabase> = []
  const running: Array<System> = []
  const results: Array<[System["name"], SlowResult]> = []
  try {
    for (const start of [startService, startBaseline]) {
      const db = await freshDatabase(start === startService ? "service" : "baseline", settings.db === "postgres" ? settings.serverUrl : undefined)
      databases.push(db)
      const system = await start(rpc, db)
      running.push(system)
      const clients = await enrollClients(rpc, system, settings.slowClients)
      const result = await slowRun(rpc, system, clients, settings.slowTransfers)
      results.push([system.name, result])
      process.stderr.write(`  ${system.name}: ${result.transfers} transfers in ${fixed(result.seconds, 1)} s\n`)
      await system.child.stop()
      running.pop()
    }
  } finally {
    for (const system of running) await system.child.stop()
    await rpc.close()
    for (const db of databases) await db.drop()
  }
  const perTransfer = (r: SlowResult, count: number) => fixed(count / r.transfers, 2)
  const methodCount = (r: SlowResult, method: string) => r.calls.get(method) ?? 0
  const others = (r: SlowResult) => [...r.calls].filter(([m]) => m !== "sendTransaction" && m !== "getTransaction").reduce((n, [, c]) => n + c, 0)
  const total = (r: SlowResult) => [...r.calls.values()].reduce((n, c) => n + c, 0)
  const row = (label: string, cell: (r: SlowResult) => string) => [label, ...results.map(([, r]) => cell(r))]
  console.log(table(
    ["", ...results.map(([name]) => name)],
    [
      row("transfers (errors)", (r) => `${r.transfers} (${r.errors})`),
      row("response after ledger close p50 / p99 ms", (r) => `${fixed(percentile(r.afterClose, 50))} / ${fixed(percentile(r.afterClose, 99))}`),
      row("  min / max ms", (r) => `${fixed(r.afterClose[0] ?? Number.NaN)} / ${fixed(r.afterClose.at(-1) ?? Number.NaN)}`),
      row("request latency p50 / p99 ms", (r) => `${fixed(percentile(r.latency, 50))} / ${fixed(percentile(r.latency, 99))}`),
      row("RPC calls per transfer", (r) => perTransfer(r, total(r))),
      row("  sendTransaction", (r) => perTransfer(r, methodCount(r, "sendTransaction"))),
      row("  getTransaction", (r) => perTransfer(r, methodCount(r, "getTransaction"))),
      row("  others", (r) => perTransfer(r, others(r)))
    ]
  ))
  for (const [name, r] of results) if (r.errors > 0) console.log(`errors: ${name}: ${r.errors}, the first: ${r.firstError}`)
}

// ---- main ----

const cpu = cpus()
console.log(`POST /transfer benchmark, ${new Date().toISOString()}`)
console.log(`node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"})`)
console.log(
  `database: ${settings.db === "embedded" ? "embedded PostgreSQL, a private cluster per system, pools of 10" : `PostgreSQL server (${new URL(settings.serverUrl).host}), a fresh database per system, pools of 10`}`
)
console.log("service (src/App.ts AppLive) and baseline (bench/baseline.ts) each in a child process; this process holds the loopback RPC and the clients")
console.log("")
console.log(
  `== instant ledgers (${settings.instantLedgerMs === 0 ? "a ledger closes the moment sendTransaction accepts a transaction" : `a ledger every ${settings.instantLedgerMs} ms`}); ` +
    `closed loop, ${settings.warmup} s warm-up + ${settings.seconds} s measured per system and concurrency`
)
await instantPhase()
console.log("")
console.log(
  `== ${settings.slowLedgerMs / 1000}-second ledgers: ${settings.slowClients} clients x ${settings.slowTransfers} transfers per system, ` +
    "each sent after a random pause of up to one ledger interval"
)
await slowPhase()
console.log("")
console.log(`driver peak RSS ${fixed(process.resourceUsage().maxRSS / 1024)} MiB`)
