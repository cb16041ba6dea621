// POST /batch benchmark: one batch run of 1,000 signed transfers (10 jobs x 100 items) from 100 wallets of one
// organization, against the loopback Stellar RPC closing a ledger every 5 seconds. It measures how many ledgers the
// run takes against the minimum the per-account sequence order allows, the service's CPU time per item, and its memory
// before, during and after the run (read through the service's inspector).
//
//   node_modules/.bin/node bench/batch-run.ts            (see bench/README.md for the settings and the figures)
//
// This process is the driver: it holds the loopback RPC and the client. The service (bench/service.ts) runs in a
// child process of its own, with a fresh database, and reports its own CPU time over IPC (bench/support.ts).
import { Keypair, Networks, StrKey } from "@stellar/stellar-sdk"
import { Agent } from "node:http"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { arch, cpus, platform } from "node:os"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import type { BenchDatabase, Child, ChildStats } from "./support.ts"
import { addWallet, ascending, call, createOrg, deployToken, envNumber, expectOk, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, startChild, table, transferXdr } from "./support.ts"

const dbKind = process.env.BENCH_DB ?? "embedded"
if (dbKind !== "embedded" && dbKind !== "postgres") throw new Error(`BENCH_DB must be embedded or postgres, got ${dbKind}`)

const integer = (name: string, fallback: number, min: number): number => {
  const value = envNumber(name, fallback)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${value}`)
  return value
}

const settings = {
  db: dbKind,
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  ledgerMs: integer("BENCH_BATCH_LEDGER_MS", 5000, 1),
  accounts: integer("BENCH_BATCH_ACCOUNTS", 100, 1),
  perAccount: integer("BENCH_BATCH_PER_ACCOUNT", 10, 1),
  perJob: integer("BENCH_BATCH_PER_JOB", 5, 1),
  pollMs: integer("BENCH_BATCH_POLL_MS", 1000, 1),
  warmup: integer("BENCH_BATCH_WARMUP", 1, 0) > 0,
  idle: integer("BENCH_BATCH_IDLE", 1, 0) > 0,
  validFor: integer("BENCH_BATCH_VALID_SECONDS", 300, 1),
  memory: integer("BENCH_BATCH_MEMORY", 1, 0) > 0
}
// A real transfer is ~31 KB of XDR (~41.6 K characters of base64: the 14,592-byte proof travels in the call's
// arguments and again in the source account's authorization entry); a 256 KiB body holds 6 of them (and 5 with a
// 16,224-byte zero-knowledge proof, ~46 K characters each).
if (settings.perJob > 6) throw new Error(`${settings.perJob} real-size transfers per job: a 256 KiB POST /batch body holds 6`)
/** Each account's transfers in consecutive jobs of at most `perJob`; a continuing job waits for the one before it. */
const chunksPerAccount = Math.ceil(settings.perAccount / settings.perJob)
const jobCount = settings.accounts * chunksPerAccount
const totalItems = settings.accounts * settings.perAccount

/** Service settings the benchmark passes on when they are set in its own environment; otherwise the defaults. */
const PASSED_ON = ["RECONCILE_INTERVAL", "BATCH_WORKER_JOBS", "BATCH_ACCOUNTS_PER_JOB", "TRANSFER_POLL_MARGIN", "STELLAR_RPC_TIMEOUT"]
const SERVICE_DEFAULTS: Record<string, string> = {
  RECONCILE_INTERVAL: "5 seconds",
  BATCH_WORKER_JOBS: "128",
  BATCH_ACCOUNTS_PER_JOB: "32",
  TRANSFER_POLL_MARGIN: "10 seconds",
  STELLAR_RPC_TIMEOUT: "10 seconds"
}

const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 7))
const ISSUER = "http://payroll.bench"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))


// ---- the service's memory, read through its inspector (a loopback port of its own) ----

interface Memory {
  readonly rss: number
  readonly heapTotal: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
}

interface MemoryProbe {
  /** process.memoryUsage() of the service; with `gc`, after a full, memory-reducing collection. */
  readonly read: (gc?: boolean) => Promise<Memory>
  readonly close: () => void
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Speaks the Chrome DevTools protocol to the service's inspector: Runtime.evaluate and HeapProfiler.collectGarbage. */
const openMemoryProbe = async (port: number): Promise<MemoryProbe> => {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as Array<{ readonly webSocketDebuggerUrl: string }>
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  let next = 0
  const waiting = new Map<number, (result: any) => void>()
  socket.onmessage = (message) => {
    const data = JSON.parse(String(message.data))
    waiting.get(data.id)?.(data.result)
    waiting.delete(data.id)
  }
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<any>((resolve) => {
      const id = ++next
      waiting.set(id, resolve)
      socket.send(JSON.stringify({ id, method, params }))
    })
  return {
    read: async (gc = false) => {
      if (gc) await send("HeapProfiler.collectGarbage")
      const answer = await send("Runtime.evaluate", { expression: "JSON.stringify(process.memoryUsage())", returnByValue: true })
      return JSON.parse(answer.result.value) as Memory
    },
    close: () => socket.close()
  }
}

/** Samples the service's memory every `ms` until stopped; the highest RSS and heapUsed seen. */
const sampleMemory = (probe: MemoryProbe, ms: number) => {
  let rss = 0
  let heapUsed = 0
  let running = true
  const done = (async () => {
    while (running) {
      const m = await probe.read()
      rss = Math.max(rss, m.rss)
      heapUsed = Math.max(heapUsed, m.heapUsed)
      await sleep(ms)
    }
  })()
  return async () => {
    running = false
    await done
    return { rss, heapUsed }
  }
}

const mib = (bytes: number) => fixed(bytes / 2 ** 20)
const memoryCells = (m: Memory) =>
  `${mib(m.rss)} MiB (heap ${mib(m.heapUsed)} used of ${mib(m.heapTotal)}, external ${mib(m.external)}, of which array buffers ${mib(m.arrayBuffers)})`

// ---- the service ----

const startService = async (rpc: LoopbackRpc, db: BenchDatabase, inspectPort: number | undefined): Promise<Child> => {
  const sponsor = Keypair.random()
  rpc.setAccount({ id: sponsor.publicKey() })
  const passed: Record<string, string> = {}
  for (const name of PASSED_ON) {
    const value = process.env[name]
    if (value !== undefined) passed[name] = value
  }
  const env = serviceEnv(rpc, db, { sponsor, contract: CONTRACT, issuer: ISSUER }, passed)
  if (inspectPort !== undefined) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --inspect=127.0.0.1:${inspectPort}`.trim()
  return startChild("service", "./service.ts", env)
}

interface Org {
  /** The owner's session: it submits and polls every job. */
  readonly token: string
  /** The owner first, then the members; every one an account on the loopback ledger. */
  readonly wallets: ReadonlyArray<Keypair>
}

/** One organization: an owner (POST /orgs) and `count - 1` members who joined with POST /orgs/invites + /orgs/join. */
const enrollOrg = async (rpc: LoopbackRpc, url: string, count: number): Promise<Org> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  try {
    const owner = Keypair.random()
    addWallet(rpc, CONTRACT, owner)
    const token = await sep10SignIn(agent, url, owner)
    await createOrg(agent, url, token, "Bench Batch Co")
    const wallets = [owner]
    for (let i = 1; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, () => Keypair.random())
      await Promise.all(batch.map(async (wallet) => {
        addWallet(rpc, CONTRACT, wallet)
        const invite = expectOk("invite", await call(agent, url, "POST", "/orgs/invites", { token, json: { role: "payer" } }))
        const member = await sep10SignIn(agent, url, wallet)
        expectOk("join", await call(agent, url, "POST", `/orgs/join/${invite.token}`, { token: member }))
      }))
      wallets.push(...batch)
    }
    return { token, wallets }
  } finally {
    agent.destroy()
  }
}

// ---- a batch run ----

interface Job {
  readonly items: ReadonlyArray<Item>
  /** The job that must be complete before this one is posted (the same account's earlier transfers). */
  readonly after: number | undefined
}

interface Item {
  readonly job: number
  /** Position in its job's `transactions` (results are reported by it). */
  readonly i: number
  readonly account: number
  /** 0-based position among its account's transfers in this run. */
  readonly k: number
  readonly signedXDR: string
}

const shuffle = <T>(values: Array<T>): Array<T> => {
  for (let i = values.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[values[i], values[j]] = [values[j]!, values[i]!]
  }
  return values
}

/**
 * `perAccount` consecutive transfers from each wallet, from its current sequence number on; job `j` holds the
 * transfers of wallets j*n .. j*n+n-1 (n wallets per job), shuffled the way a client might send them (the worker
 * sorts each account's items by sequence number).
 */
const buildJobs = (rpc: LoopbackRpc, wallets: ReadonlyArray<Keypair>, perAccount: number): Array<Job> => {
  const jobs: Array<Job> = []
  wallets.forEach((wallet, a) => {
    const base = rpc.account(wallet.publicKey())!.sequence
    for (let from = 0; from < perAccount; from += settings.perJob) {
      const job = jobs.length
      const own: Array<Omit<Item, "i">> = []
      for (let k = from; k < Math.min(perAccount, from + settings.perJob); k++) {
        own.push({ job, account: a, k, signedXDR: transferXdr(wallet, base + BigInt(k), CONTRACT, Networks.TESTNET, settings.validFor) })
      }
      jobs.push({ items: shuffle(own).map((item, i) => ({ ...item, i })), after: from === 0 ? undefined : job - 1 })
    }
  })
  return jobs
}

interface Result {
  readonly i: number
  readonly hash: string
  readonly status: string
  readonly error?: string
}

interface Run {
  readonly jobIds: ReadonlyArray<string>
  readonly results: ReadonlyArray<ReadonlyArray<Result>>
  /** Wall clock (Date.now) when the first POST /batch was sent. */
  readonly submittedAt: number
  /** Wall clock when every POST /batch had answered. */
  readonly acceptedAt: number
  /** Wall clock when the client had seen every job complete (or gave up). */
  readonly completedAt: number
  readonly complete: boolean
  readonly polls: number
}

/**
 * Posts every job that waits for nothing at once, then polls GET /batch/{jobId} every `pollMs`; a job that continues
 * an account is posted on the poll that sees the job before it complete (what client/src/PayrollClient.ts's runPayroll does).
 */
const runJobs = async (url: string, token: string, jobs: ReadonlyArray<Job>, deadline: number): Promise<Run> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  try {
    const jobIds: Array<string | undefined> = jobs.map(() => undefined)
    const results: Array<ReadonlyArray<Result> | undefined> = jobs.map(() => undefined)
    const post = async (j: number) => {
      const body = expectOk("POST /batch", await call(agent, url, "POST", "/batch", {
        token,
        json: { transactions: jobs[j]!.items.map((item) => ({ signedXDR: item.signedXDR })) }
      }))
      jobIds[j] = body.jobId as string
    }
    const postReady = () =>
      Promise.all(jobs.map((job, j) =>
        jobIds[j] === undefined && (job.after === undefined || results[job.after] !== undefined) ? post(j) : undefined
      ))
    const submittedAt = Date.now()
    await postReady()
    const acceptedAt = Date.now()
    let polls = 0
    let last = Date.now()
    while (results.some((r) => r === undefined) && Date.now() < deadline) {
      await sleep(Math.max(0, last + settings.pollMs - Date.now()))
      last = Date.now()
      await Promise.all(jobIds.map(async (jobId, j) => {
        if (jobId === undefined || results[j] !== undefined) return
        const body = expectOk("GET /batch", await call(agent, url, "GET", `/batch/${jobId}`, { token }))
        polls += 1
        if (Array.isArray(body.results) && body.results.length === jobs[j]!.items.length) results[j] = body.results
      }))
      await postReady()
    }
    const complete = results.every((r) => r !== undefined)
    if (!complete) {
      // the partial results, for the report
      await Promise.all(jobIds.map(async (jobId, j) => {
        if (results[j] === undefined && jobId !== undefined) {
          results[j] = expectOk("GET /batch", await call(agent, url, "GET", `/batch/${jobId}`, { token })).results ?? []
        }
      }))
    }
    return {
      jobIds: jobIds.map((id) => id ?? ""),
      results: results.map((r) => r ?? []),
      submittedAt,
      acceptedAt,
      completedAt: Date.now(),
      complete,
      polls
    }
  } finally {
    agent.destroy()
  }
}

// ---- main ----

const cpu = cpus()
const serviceSetting = (name: string) =>
  process.env[name] === undefined ? `${name}=${SERVICE_DEFAULTS[name]} (default)` : `${name}=${process.env[name]} (from the environment)`
console.log(`POST /batch benchmark, ${new Date().toISOString()}`)
console.log(`node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"})`)
console.log(
  `database: ${
    settings.db === "embedded"
      ? "embedded PostgreSQL, a private cluster the service starts (src/EmbeddedPostgres/Embedded.ts; its own processes, not in the memory figures), the service's pool of 10"
      : `PostgreSQL server (${new URL(settings.serverUrl).host}), a fresh database, the service's pool of 10`
  }`
)
console.log(
  `loopback RPC in this process, a ledger every ${settings.ledgerMs} ms; the service (src/Server/App.ts AppLive) in a child process; ` +
    `${["RECONCILE_INTERVAL", "BATCH_WORKER_JOBS", "BATCH_ACCOUNTS_PER_JOB"].map(serviceSetting).join(", ")}`
)
console.log(
  `run: ${totalItems} transfers = ${settings.accounts} wallets of one organization (owner + ${settings.accounts - 1} members) x ` +
    `${settings.perAccount} consecutive sequence numbers, in ${jobCount} jobs of one wallet's next <= ${settings.perJob} transfers ` +
    `(real-size envelopes: 6 fit a 256 KiB body); each wallet's first job posted at once by the owner, just after a ledger closes, ` +
    `the next one when the poll sees it complete; GET /batch/{jobId} every ${settings.pollMs} ms`
)
console.log("")

const setupStarted = performance.now()
const rpc = await LoopbackRpc.start({ ledgerIntervalMs: settings.ledgerMs })
deployToken(rpc, CONTRACT)
const db = await freshDatabase("batch", settings.db === "postgres" ? settings.serverUrl : undefined)
let service: Child | undefined
let probe: MemoryProbe | undefined
try {
  const inspectPort = settings.memory ? await freePort() : undefined
  service = await startService(rpc, db, inspectPort)
  if (inspectPort !== undefined) probe = await openMemoryProbe(inspectPort)
  const memFresh = await probe?.read()
  const org = await enrollOrg(rpc, service.url, settings.accounts)
  process.stderr.write(`  ${org.wallets.length} wallets enrolled in ${fixed((performance.now() - setupStarted) / 1000, 1)} s\n`)

  let warmupNote = "none"
  if (settings.warmup) {
    // One transfer per wallet, in the run's shape (the same jobs, the same wallets): the service's transfer path is
    // compiled and its caches are warm before the clock starts. It takes a ledger or two.
    const started = performance.now()
    const warm = await runJobs(service.url, org.token, buildJobs(rpc, org.wallets, 1), Date.now() + 120_000)
    const ok = warm.results.flat().filter((r) => r.status === "SUCCESS").length
    warmupNote = `${settings.accounts} transfers (one per wallet, ${settings.accounts} jobs): ${ok} SUCCESS in ${fixed((performance.now() - started) / 1000, 1)} s`
    if (ok !== settings.accounts) throw new Error(`warm-up: only ${ok} of ${settings.accounts} transfers succeeded: ${JSON.stringify(warm.results.flat().find((r) => r.status !== "SUCCESS"))}`)
  }
  const setupSeconds = (performance.now() - setupStarted) / 1000

  // ---- the measured run ----
  const jobs = buildJobs(rpc, org.wallets, settings.perAccount)
  const firstSequence = org.wallets.map((w) => rpc.account(w.publicKey())!.sequence + 1n)
  await rpc.waitForLedger(rpc.latestLedger + 1)
  const submitLedger = rpc.latestLedger // the last ledger closed before the jobs were posted
  const submitLedgerClosedAt = rpc.closeTimeOf(submitLedger)!
  rpc.resetCalls()
  const memBefore = await probe?.read()
  const before = await service.stats()
  const driverBefore = process.cpuUsage()
  const memPeak = probe === undefined ? undefined : sampleMemory(probe, 1000)
  const run = await runJobs(service.url, org.token, jobs, Date.now() + (settings.validFor + 60) * 1000)
  const after = await service.stats()
  const memRunPeak = await memPeak?.()
  const memAfter = await probe?.read()
  const driverCpu = process.cpuUsage(driverBefore)
  const calls = new Map<string, number>()
  for (const { method } of rpc.calls) calls.set(method, (calls.get(method) ?? 0) + 1)
  const runMs = run.completedAt - run.submittedAt

  // ---- the idle baseline: the same service, doing nothing, for as long as the run took ----
  let idle: { readonly cpuMicros: number; readonly ms: number; readonly rpcCalls: number } | undefined
  if (settings.idle) {
    await sleep(1000) // the last job's `finish` and lease release
    rpc.resetCalls()
    const idleBefore = await service.stats()
    const idleStarted = performance.now()
    await sleep(runMs)
    const idleAfter = await service.stats()
    idle = { cpuMicros: idleAfter.cpuMicros - idleBefore.cpuMicros, ms: performance.now() - idleStarted, rpcCalls: rpc.calls.length }
  }
  const memIdle = idle === undefined ? undefined : await probe?.read()

  // ---- what one GET /batch/{jobId} of a whole job costs the service (the client's polls are in the run's CPU) ----
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 })
  const probes = 100
  const probeBefore = await service.stats()
  for (let p = 0; p < probes; p++) await call(probeAgent, service.url, "GET", `/batch/${run.jobIds[p % run.jobIds.length]}`, { token: org.token })
  const probeAfter = await service.stats()
  probeAgent.destroy()
  const pollMicros = (probeAfter.cpuMicros - probeBefore.cpuMicros) / probes
  const memGc = await probe?.read(true)

  // ---- analysis ----
  const items = jobs.flatMap((job) => job.items)
  const byJob = run.results.map((results) => new Map(results.map((r) => [r.i, r])))
  const resultOf = (item: Item) => byJob[item.job]?.get(item.i)
  const statuses = new Map<string, number>()
  let firstProblem: string | undefined
  for (const item of items) {
    const r = resultOf(item)
    const status = r?.status ?? "missing"
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
    if (status !== "SUCCESS") firstProblem ??= `job ${item.job} item ${item.i}: ${JSON.stringify(r ?? null)}`
  }
  const ledgerOf = (item: Item) => {
    const r = resultOf(item)
    return r?.status === "SUCCESS" ? rpc.transaction(r.hash)?.ledger : undefined
  }
  const landed = items.filter((item) => ledgerOf(item) !== undefined)
  const ledgers = landed.map((item) => ledgerOf(item)!)
  const firstLedger = Math.min(...ledgers)
  const lastLedger = Math.max(...ledgers)
  const perLedger = new Map<number, number>()
  for (const l of ledgers) perLedger.set(l, (perLedger.get(l) ?? 0) + 1)

  // per account: inclusion ledgers in sequence order, sends, lags
  let ordered = 0
  let inMinimum = 0
  let sentTwice = 0
  let sequencesOk = 0
  const waitedExtra: Array<number> = [] // ledgers an account took beyond one per transfer
  const firstSendLag: Array<number> = [] // ms from posting the jobs to the RPC accepting the account's first transfer
  const nextSendLag: Array<number> = [] // ms from the close of the ledger holding transfer k-1 to the RPC accepting transfer k
  for (let a = 0; a < settings.accounts; a++) {
    const own = items.filter((item) => item.account === a).sort((x, y) => x.k - y.k)
    const sent = own.map((item) => {
      const r = resultOf(item)
      const tx = r?.status === "SUCCESS" ? rpc.transaction(r.hash) : undefined
      if (tx !== undefined && tx.sends.length !== 1) sentTwice += 1
      return { ledger: tx?.ledger, acceptedAt: tx?.acceptedAt }
    })
    const ls = sent.map((x) => x.ledger)
    if (ls.every((l, k) => l !== undefined && (k === 0 || l > ls[k - 1]!))) ordered += 1
    const last = ls.at(-1)
    if (last !== undefined && ls.every((l) => l !== undefined)) {
      waitedExtra.push(last - submitLedger - settings.perAccount)
      if (last - submitLedger === settings.perAccount) inMinimum += 1
    }
    const account = rpc.account(org.wallets[a]!.publicKey())!
    if (account.sequence === firstSequence[a]! + BigInt(settings.perAccount) - 1n) sequencesOk += 1
    sent.forEach((x, k) => {
      if (x.acceptedAt === undefined) return
      if (k === 0) return firstSendLag.push(x.acceptedAt - run.submittedAt)
      const previous = sent[k - 1]!.ledger
      const closedAt = previous === undefined ? undefined : rpc.closeTimeOf(previous)
      if (closedAt !== undefined) nextSendLag.push(x.acceptedAt - closedAt)
    })
  }
  const missedAfterClose = nextSendLag.filter((ms) => ms > settings.ledgerMs).length

  const lastClosedAt = rpc.closeTimeOf(lastLedger)
  const count = (method: string) => calls.get(method) ?? 0
  const totalCalls = [...calls.values()].reduce((n, c) => n + c, 0)
  const others = [...calls].filter(([m]) => !["sendTransaction", "getTransaction", "getLedgerEntries"].includes(m))
  const per = (n: number) => fixed(n / totalItems, 2)
  const cpuRunMicros = after.cpuMicros - before.cpuMicros
  const idleMicros = idle === undefined ? undefined : (idle.cpuMicros * runMs) / idle.ms
  const netMicros = idleMicros === undefined ? cpuRunMicros : cpuRunMicros - idleMicros
  const elu = (a: ChildStats, b: ChildStats) => (b.eluActiveMs - a.eluActiveMs) / (b.eluActiveMs - a.eluActiveMs + b.eluIdleMs - a.eluIdleMs)
  const lags = (values: Array<number>) => {
    const sorted = ascending(values)
    return `${fixed(percentile(sorted, 50))} / ${fixed(percentile(sorted, 99))} / ${fixed(sorted.at(-1) ?? Number.NaN)}`
  }
  const sendStatuses = new Map<string, number>()
  for (const tx of rpc.transactions) {
    for (const send of tx.sends) if (send.at >= run.submittedAt) sendStatuses.set(send.status, (sendStatuses.get(send.status) ?? 0) + 1)
  }

  console.log(`setup: service started and ${settings.accounts} wallets enrolled, warm-up ${warmupNote}; ${fixed(setupSeconds, 1)} s`)
  console.log(
    `jobs posted ${fixed(run.submittedAt - submitLedgerClosedAt)} ms after ledger ${submitLedger} closed; the first ${settings.accounts} accepted in ${
      fixed(run.acceptedAt - run.submittedAt)
    } ms${run.complete ? "" : "; NOT every job completed before the benchmark gave up"}`
  )
  console.log("")
  console.log(table(["", "value"], [
    ["items: SUCCESS / other", `${statuses.get("SUCCESS") ?? 0} / ${totalItems - (statuses.get("SUCCESS") ?? 0)}${
      statuses.size > 1 ? ` (${[...statuses].filter(([s]) => s !== "SUCCESS").map(([s, n]) => `${s} ${n}`).join(", ")})` : ""
    }`],
    [
      "ledgers closed, posting -> last inclusion",
      landed.length === 0
        ? "none landed"
        : `${lastLedger - submitLedger} (minimum ${settings.perAccount}: ${fixed((lastLedger - submitLedger) / settings.perAccount, 2)}x)`
    ],
    ["inclusion span, first..last ledger", landed.length === 0 ? "-" : `${lastLedger - firstLedger + 1} (${firstLedger}..${lastLedger})`],
    ["transfers per ledger", [...perLedger].sort(([x], [y]) => x - y).map(([l, n]) => `+${l - submitLedger}:${n}`).join(" ")],
    ["accounts: ledgers strictly increasing in sequence order", `${ordered} / ${settings.accounts}`],
    [`accounts done in the minimum ${settings.perAccount} ledgers`, `${inMinimum} / ${settings.accounts}`],
    ["  ledgers an account waited beyond that, mean / max", `${fixed(waitedExtra.reduce((s, n) => s + n, 0) / Math.max(1, waitedExtra.length), 2)} / ${fixed(Math.max(...waitedExtra))}`],
    ["accounts at their last sequence number", `${sequencesOk} / ${settings.accounts}`],
    ["transfers sent more than once", String(sentTwice)],
    ["first send after posting, p50 / p99 / max ms", lags(firstSendLag)],
    ["next send after the previous one's ledger closed, p50 / p99 / max ms", lags(nextSendLag)],
    [`  of which later than one ledger (${settings.ledgerMs} ms)`, `${missedAfterClose} / ${nextSendLag.length}`],
    ["wall clock: posting -> last inclusion ledger closed", `${fixed(((lastClosedAt ?? Number.NaN) - run.submittedAt) / 1000, 1)} s`],
    ["wall clock: posting -> client has every result", `${fixed(runMs / 1000, 1)} s (GET /batch every ${settings.pollMs} ms: ${run.polls} polls)`],
    ["RPC calls per item", `${per(totalCalls)}`],
    ["  sendTransaction", `${per(count("sendTransaction"))} (answers: ${[...sendStatuses].map(([s, n]) => `${s} ${n}`).join(", ")})`],
    ["  getTransaction", per(count("getTransaction"))],
    ["  getLedgerEntries", per(count("getLedgerEntries"))],
    ["  others", others.length === 0 ? per(0) : `${per(others.reduce((n, [, c]) => n + c, 0))} (${others.map(([m, c]) => `${m} ${c}`).join(", ")})`],
    ["service CPU during the run", `${fixed(cpuRunMicros / 1e6, 2)} s (${fixed((cpuRunMicros / 1000 / runMs) * 100)}% of one core)`],
    [
      "  idle baseline, same duration",
      idle === undefined
        ? "not measured (BENCH_BATCH_IDLE=0)"
        : `${fixed((idleMicros ?? 0) / 1e6, 2)} s (measured over ${fixed(idle.ms / 1000, 1)} s after the run; ${idle.rpcCalls} RPC calls)`
    ],
    ["  net, per item", `${fixed(netMicros / 1000 / totalItems, 2)} ms (${fixed(netMicros / 1e6, 2)} s / ${totalItems})`],
    ["  of which the client's polls, at most", `${fixed((run.polls * pollMicros) / 1000 / totalItems, 2)} ms per item (${run.polls} polls x ${fixed(pollMicros / 1000, 2)} ms, the cost of a whole job's GET)`],
    ["  net of the idle baseline and the polls, per item", `${fixed((netMicros - run.polls * pollMicros) / 1000 / totalItems, 2)} ms`],
    ["service event loop busy during the run", `${fixed(elu(before, after) * 100)}%`],
    ["service RSS before / after the run, peak", `${fixed(before.rssBytes / 2 ** 20)} / ${fixed(after.rssBytes / 2 ** 20)} MiB, ${fixed(after.maxRssBytes / 2 ** 20)} MiB`],
    ...(memFresh === undefined || memBefore === undefined || memAfter === undefined || memRunPeak === undefined || memGc === undefined
      ? [["service memory", "not measured (BENCH_BATCH_MEMORY=0)"]]
      : [
        ["service memory: started, before set-up", memoryCells(memFresh)],
        ["  before the run (after set-up and warm-up)", memoryCells(memBefore)],
        ["  peak during the run (1 s samples)", `${mib(memRunPeak.rss)} MiB RSS, heap used ${mib(memRunPeak.heapUsed)} MiB`],
        ["  right after the run", memoryCells(memAfter)],
        [
          "  after the idle baseline",
          memIdle === undefined
            ? "not measured (BENCH_BATCH_IDLE=0)"
            : `${memoryCells(memIdle)}; RSS ${memIdle.rss >= memBefore.rss ? "+" : ""}${mib(memIdle.rss - memBefore.rss)} MiB against before the run`
        ],
        [
          "  then after a forced full GC (diagnostic)",
          `${memoryCells(memGc)}; RSS ${memGc.rss >= memBefore.rss ? "+" : ""}${mib(memGc.rss - memBefore.rss)} MiB against before the run`
        ]
      ]),
    ["driver CPU during the run (loopback RPC + client)", `${fixed((driverCpu.user + driverCpu.system) / 1e6, 2)} s (${fixed(((driverCpu.user + driverCpu.system) / 1000 / runMs) * 100)}% of one core)`]
  ]))
  if (firstProblem !== undefined) console.log(`first item that did not succeed: ${firstProblem}`)
} finally {
  probe?.close()
  await service?.stop()
  await rpc.close()
  await db.drop()
}
