// POST /transfer benchmark: the service against a framework-free baseline, on the loopback Stellar RPC.
//
//   node_modules/.bin/node bench/transfer.ts            (see bench/README.md for the settings and the figures)
//
// This process is the driver: it holds the loopback RPC and the clients. The service (bench/service.ts) and the
// baseline (bench/baseline.ts) each run in a child process of their own, with a fresh database of the same kind.
//
// BENCH_LINKED=1: every transfer the service gets pays a payout (`payoutId`) of a ready batch of the client's own
// organization, made while the clients enroll; the baseline's transfers stay as they are (it has no payouts).
import { Keypair, Networks, StrKey } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { Agent } from "node:http"
import { arch, cpus, platform } from "node:os"
import pg from "pg"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import type { BenchDatabase, System } from "./support.ts"
import { addWallet, ascending, call, childEnv, clusterCpuMs, createOrg, databaseConnection, deployToken, envNumber, expectOk, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, signJwt, startChild, table, transferXdr } from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)
const linkedFlag = process.env.BENCH_LINKED ?? "0"
if (linkedFlag !== "0" && linkedFlag !== "1" && linkedFlag !== "") throw new Error(`BENCH_LINKED must be 0 or 1, got ${linkedFlag}`)

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
  slowTransfers: envNumber("BENCH_SLOW_TRANSFERS", 2),
  /** Every transfer the service gets names a payout (the baseline's do not: it has no payouts). */
  linked: linkedFlag === "1",
  /** Linked mode: an upper bound of the service's transfers/s at any concurrency, which sizes each client's payouts. */
  linkedTps: envNumber("BENCH_LINKED_TPS", 200)
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

/** A payout a linked transfer pays, and its contractor's address: the transfer's recipient (`to`). */
interface Payable {
  readonly id: string
  readonly address: string
}

interface Client {
  readonly wallet: Keypair
  readonly token: string
  /** Linked mode, the service's clients: the payouts of the organization's ready batch, paid in order from `next`. */
  readonly payouts: { readonly list: ReadonlyArray<Payable>; next: number } | undefined
}

/**
 * Linked mode: `count` payee addresses registered with the token on `rpc` (the same for every organization: an address
 * is unique only within one organization's directory), made once per loopback RPC and grown on demand.
 */
const payeePool = new WeakMap<LoopbackRpc, Array<string>>()
const payeeAddresses = (rpc: LoopbackRpc, count: number): ReadonlyArray<string> => {
  const pool = payeePool.get(rpc) ?? []
  payeePool.set(rpc, pool)
  while (pool.length < count) {
    const address = Keypair.random().publicKey()
    rpc.registerConfidential(CONTRACT, address)
    pool.push(address)
  }
  return pool.slice(0, count)
}

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

/**
 * Linked mode: the organization of the session `token` gets a ready contractor per address (`POST /contractors`, the
 * address registered with the token, so `ready`), a batch (`POST /batches`) with a payout for each
 * (`POST /batches/{id}/payouts`, at most 1000 a call), locked (`POST /batches/{id}/ready`). Answers the payouts.
 */
const seedPayouts = async (agent: Agent, url: string, token: string, addresses: ReadonlyArray<string>): Promise<Array<Payable>> => {
  const contractors = await eachLimited(addresses, 4, async (address, i) => {
    const made = expectOk("contractor", await call(agent, url, "POST", "/contractors", { token, json: { name: `Payee ${i}`, address } }))
    if (made.status !== "ready") throw new Error(`contractor ${address} was created ${made.status}, not ready`)
    return { id: made.id as string, address }
  })
  const addressOf = new Map(contractors.map((c) => [c.id, c.address]))
  const batch = expectOk("batch", await call(agent, url, "POST", "/batches", { token, json: { name: "Bench payroll" } }))
  const payouts: Array<Payable> = []
  for (let i = 0; i < contractors.length; i += 1000) {
    const contractorIds = contractors.slice(i, i + 1000).map((c) => c.id)
    const added = expectOk("payouts", await call(agent, url, "POST", `/batches/${batch.id}/payouts`, { token, json: { contractorIds } }))
    for (const payout of added as ReadonlyArray<{ readonly id: string; readonly contractorId: string }>) {
      payouts.push({ id: payout.id, address: addressOf.get(payout.contractorId)! })
    }
  }
  expectOk("ready", await call(agent, url, "POST", `/batches/${batch.id}/ready`, { token }))
  return payouts
}

/**
 * `count` fresh wallets, each an account on the loopback ledger and an employer of its own organization; in linked
 * mode each service client's organization also gets a ready batch of `payoutsFor(its index)` payouts.
 */
const enrollClients = async (rpc: LoopbackRpc, system: System, count: number, payoutsFor: (index: number) => number): Promise<Array<Client>> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const clients: Array<Client> = []
  const linked = settings.linked && system.name === "service"
  try {
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, () => Keypair.random())
      for (const wallet of batch) addWallet(rpc, CONTRACT, wallet)
      clients.push(...await Promise.all(batch.map(async (wallet, k) => {
        const token = await system.enroll(agent, wallet)
        if (!linked) return { wallet, token, payouts: undefined }
        const list = await seedPayouts(agent, system.child.url, token, payeeAddresses(rpc, payoutsFor(i + k)))
        return { wallet, token, payouts: { list, next: 0 } }
      })))
    }
  } finally {
    agent.destroy()
  }
  return clients
}

/**
 * Linked mode, the instant phase: client `index` takes part in every concurrency above it; for each, warm-up and
 * measured run at no more than `linkedTps / concurrency` transfers/s per client, and 20 spare.
 */
const instantPayouts = (index: number) =>
  settings.concurrency.filter((c) => index < c).reduce((n, c) => n + Math.ceil(((settings.warmup + settings.seconds) * settings.linkedTps) / c) + 20, 0)

/** The audit rows in the service's database, by action; undefined when it has no audit_log (before issue 22). */
const auditRows = async (db: BenchDatabase): Promise<Map<string, number> | undefined> => {
  const client = new pg.Client(await databaseConnection(db))
  await client.connect()
  try {
    const present = await client.query<{ readonly present: boolean }>("SELECT to_regclass('audit_log') IS NOT NULL AS present")
    if (present.rows[0]?.present !== true) return undefined
    const counted = await client.query<{ readonly action: string; readonly n: number }>(
      "SELECT action, count(*)::int AS n FROM audit_log GROUP BY action"
    )
    return new Map(counted.rows.map((r) => [r.action, r.n]))
  } finally {
    await client.end()
  }
}

/** Audit rows written between two counts, per transfer: the total, then by action. */
const auditPerTransfer = (before: Map<string, number>, after: Map<string, number>, transfers: number): string => {
  const added = [...after].map(([action, n]) => [action, n - (before.get(action) ?? 0)] as const).filter(([, n]) => n > 0)
  const total = added.reduce((sum, [, n]) => sum + n, 0)
  const parts = added.sort(([a], [b]) => a.localeCompare(b)).map(([action, n]) => `${action} ${fixed(n / transfers, 2)}`)
  return `${fixed(total / transfers, 2)}${parts.length === 0 ? "" : ` (${parts.join(", ")})`}`
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

/**
 * One transfer: the next transaction of the client's wallet, posted and awaited; in linked mode paying the client's
 * next payout (to its contractor's address). False when the client has no payout left to pay (an error, and the
 * client stops: raise BENCH_LINKED_TPS).
 */
const transferOnce = async (rpc: LoopbackRpc, agent: Agent, system: System, client: Client, outcome: Tally): Promise<boolean> => {
  const account = rpc.account(client.wallet.publicKey())
  if (account === undefined) throw new Error("the wallet's account vanished from the loopback ledger")
  const payout = client.payouts === undefined ? undefined : client.payouts.list[client.payouts.next++]
  if (client.payouts !== undefined && payout === undefined) {
    outcome.errors += 1
    outcome.firstError ??= "a client paid every payout of its batch and stopped (raise BENCH_LINKED_TPS)"
    return false
  }
  const signedXDR = transferXdr(client.wallet, account.sequence, CONTRACT, Networks.TESTNET, 60, payout?.address)
  const json = payout === undefined ? { signedXDR } : { signedXDR, payoutId: payout.id }
  const started = performance.now()
  try {
    const reply = await call(agent, system.child.url, "POST", "/transfer", { token: client.token, json })
    const latencyMs = performance.now() - started
    if (reply.status === 200 && reply.body?.status === "SUCCESS" && typeof reply.body.hash === "string") {
      outcome.samples.push({ hash: reply.body.hash, latencyMs, arrivedAt: Date.now() })
      return true
    }
    outcome.errors += 1
    outcome.firstError ??= `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`
  } catch (error) {
    outcome.errors += 1
    outcome.firstError ??= String(error)
    await sleep(50)
  }
  return true
}

interface Run extends Tally {
  readonly seconds: number
  /** JSON-RPC requests the loopback received during the run, per successful transfer. */
  readonly rpcCalls: number
  readonly sorted: Array<number>
  readonly systemCpu: number // % of one core
  readonly driverCpu: number
  /** CPU time of the system's process, and of its embedded PostgreSQL cluster, per successful transfer (ms). */
  readonly cpuPerTransfer: { readonly node: number; readonly pg: number | undefined }
}

/** `clients.length` concurrent clients, each sending its next transfer as soon as the previous one answered. */
const closedLoop = async (rpc: LoopbackRpc, system: System, db: BenchDatabase, clients: ReadonlyArray<Client>, seconds: number): Promise<Run> => {
  const agent = new Agent({ keepAlive: true, maxSockets: clients.length })
  const outcome = newTally()
  const clusterCpu0 = await clusterCpuMs(db)
  const systemCpu0 = await system.child.cpuMicros()
  const driverCpu0 = process.cpuUsage()
  rpc.resetCalls()
  const started = performance.now()
  const stopAt = started + seconds * 1000
  await Promise.all(clients.map(async (client) => {
    while (performance.now() < stopAt && await transferOnce(rpc, agent, system, client, outcome)) {
      // the next transfer
    }
  }))
  const elapsedMs = performance.now() - started
  const driverCpu = process.cpuUsage(driverCpu0)
  const systemCpu = (await system.child.cpuMicros()) - systemCpu0
  const clusterCpu1 = await clusterCpuMs(db)
  agent.destroy()
  const rpcCalls = rpc.calls.length / outcome.samples.length
  rpc.resetCalls() // the loopback keeps every request it receives
  return {
    ...outcome,
    seconds: elapsedMs / 1000,
    rpcCalls,
    sorted: ascending(outcome.samples.map((s) => s.latencyMs)),
    systemCpu: (systemCpu / 1000 / elapsedMs) * 100,
    driverCpu: ((driverCpu.user + driverCpu.system) / 1000 / elapsedMs) * 100,
    cpuPerTransfer: {
      node: systemCpu / 1000 / outcome.samples.length,
      pg: clusterCpu0 === undefined || clusterCpu1 === undefined ? undefined : (clusterCpu1 - clusterCpu0) / outcome.samples.length
    }
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
    for (const system of systems) {
      const enrolling = performance.now()
      clients.set(system, await enrollClients(rpc, system, maxClients, instantPayouts))
      if (settings.linked && system === service) {
        const payouts = clients.get(system)!.reduce((n, c) => n + (c.payouts?.list.length ?? 0), 0)
        process.stderr.write(`  service: ${maxClients} clients enrolled with ${payouts} payouts in ${fixed((performance.now() - enrolling) / 1000, 1)} s\n`)
      }
    }

    const rows: Array<Array<string>> = []
    const notes: Array<string> = []
    const audit: Array<string> = []
    for (const concurrency of settings.concurrency) {
      const results = new Map<System, Run>()
      for (const system of systems) {
        const own = clients.get(system)!.slice(0, concurrency)
        const db = system === service ? serviceDb : baselineDb
        if (settings.warmup > 0) await closedLoop(rpc, system, db, own, settings.warmup)
        const auditBefore = system === service ? await auditRows(serviceDb) : undefined
        if (auditBefore !== undefined) await sleep(200) // that connection's backend exits before the CPU count starts
        const run = await closedLoop(rpc, system, db, own, settings.seconds)
        results.set(system, run)
        if (system === service) {
          const auditAfter = await auditRows(serviceDb)
          audit.push(
            `${concurrency}: ${auditBefore === undefined || auditAfter === undefined ? "no audit_log table" : auditPerTransfer(auditBefore, auditAfter, run.samples.length)}`
          )
        }
        if (run.errors > 0) notes.push(`  ${system.name} at ${concurrency}: ${run.errors} errors, the first: ${run.firstError}`)
        process.stderr.write(`  ${system.name} x${concurrency}: ${run.samples.length} transfers\n`)
      }
      const s = results.get(service)!
      const b = results.get(baseline)!
      const tps = (run: Run) => run.samples.length / run.seconds
      const cpuCell = (run: Run) => `${fixed(run.cpuPerTransfer.node, 2)} + ${fixed(run.cpuPerTransfer.pg ?? Number.NaN, 2)}`
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
        `${fixed(b.systemCpu)} / ${fixed(b.driverCpu)}`,
        cpuCell(s),
        cpuCell(b)
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
        "cpu% base / driver",
        "svc cpu ms/transfer node + pg",
        "base cpu ms/transfer node + pg"
      ],
      rows
    ))
    console.log(`service audit rows per successful transfer during the measured runs, by clients: ${audit.join("; ")}`)
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
      if (!await transferOnce(rpc, agent, system, client, outcome)) break
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
      const clients = await enrollClients(rpc, system, settings.slowClients, () => settings.slowTransfers + 2)
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
console.log("service (src/Server/App.ts AppLive) and baseline (bench/baseline.ts) each in a child process; this process holds the loopback RPC and the clients")
if (settings.linked) {
  console.log(
    "linked (BENCH_LINKED=1): every transfer the service gets pays a payout of a ready batch of the client's organization " +
      `(to its contractor's address); the baseline's are unlinked (it has no payouts); payouts sized for ${settings.linkedTps} transfers/s`
  )
}
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
