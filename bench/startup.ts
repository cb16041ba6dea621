// Start-up benchmark: `npm start` (node src/Server/main.ts) with no DATABASE_URL, so the service starts its own embedded
// PostgreSQL cluster in DATA_DIR/pg. Per run: a fresh DATA_DIR (initdb included) until the first /health/live 200 (the
// process answers) and the first /health 200 (its database and the Stellar RPC answer too), the memory of the whole
// process tree (the service and every postgres process) while starting and once idle, a SIGTERM; then a second start
// on the now existing DATA_DIR, and its SIGTERM. It says whether the service loads its bundle or, the bundle being stale,
// the source.
//
//   node bench/startup.ts                      STARTUP_RUNS=3  STARTUP_IDLE_MS=15000
//   STARTUP_NODE_FLAGS="--max-semi-space-size=16" node bench/startup.ts     (node flags for the service)
//
// Memory is read from /proc (Linux): RSS summed over the tree (shared pages, PostgreSQL's shared buffers among them,
// count once per process) and PSS summed (each shared page split among its sharers: the better total).
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { loadavg, tmpdir } from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { freshBundle } from "../src/Server/ServerBundle.ts"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { ascending, envNumber, fixed, percentile, table } from "./support.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const runs = envNumber("STARTUP_RUNS", 3)
const idleMs = envNumber("STARTUP_IDLE_MS", 15_000)
const nodeFlags = (process.env.STARTUP_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A /proc file, read synchronously: a sample is a few hundred small reads, and made asynchronous they went through the
 * thread pool and slowed the start being measured by about 0.3 s (a few milliseconds of blocking here do not).
 */
const read = (path: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** Every process descending from `pid` (itself included), from the parent links in /proc/<pid>/stat. */
const tree = (pid: number): Array<number> => {
  const parents = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = read(`/proc/${entry}/stat`)
    if (stat === undefined) continue
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
  }
  const all: Array<number> = []
  const visit = (p: number) => {
    all.push(p)
    for (const child of parents.get(p) ?? []) visit(child)
  }
  visit(pid)
  return all
}

const kib = (text: string | undefined, field: string) => Number(text?.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0)

/** RSS and PSS (MiB) summed over the process tree, and how many processes it has. */
const memory = (pid: number) => {
  let rss = 0
  let pss = 0
  const pids = tree(pid)
  for (const p of pids) {
    rss += kib(read(`/proc/${p}/status`), "VmRSS")
    pss += kib(read(`/proc/${p}/smaps_rollup`), "Pss")
  }
  return { rss: rss / 1024, pss: pss / 1024, processes: pids.length }
}

/** CPU time (ms: user + system, from /proc/<pid>/stat at 100 ticks a second) of the service and of the rest of its tree. */
const cpu = (pid: number) => {
  const ms = (p: number) => {
    const stat = read(`/proc/${p}/stat`)
    if (stat === undefined) return 0
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
  const pids = tree(pid)
  const service = ms(pid)
  return { service, postgres: pids.slice(1).reduce((sum, p) => sum + ms(p), 0) }
}

/** A loopback port free now (a random one was sometimes taken, by another program's outgoing connection say). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const start = (rpc: LoopbackRpc, dataDir: string, port: number) => {
  let output = ""
  const child: ChildProcess = spawn(Path.join(root, "node_modules/.bin/node"), [...nodeFlags, "src/Server/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // As `npm start` sets it (package.json): main.ts's own TypeScript is compiled once, not stripped on every start.
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? Path.join(root, "dist", "server", "compile-cache"),
      DATA_DIR: dataDir,
      PORT: String(port),
      STELLAR_RPC_URL: rpc.url,
      FRIENDBOT_URL: rpc.url
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, exited, output: () => output }
}

interface Run {
  readonly liveMs: number
  /**
   * CPU time (ms) the service and its PostgreSQL processes had used by the first /health/live 200: on a shared machine
   * the time to it stretches with the load, what the start costs much less.
   */
  readonly liveCpu: { service: number; postgres: number }
  readonly readyMs: number
  readonly peak: { rss: number; pss: number }
  readonly idle: { rss: number; pss: number; processes: number }
  /** CPU per second of the idle window's second half (the first settles the start): ms/s. */
  readonly idleCpu: { service: number; postgres: number }
  readonly stopMs: number
}

/**
 * One start on `dataDir`: time to the first /health/live 200 and then to the first /health 200, memory while starting
 * and after `idle` ms, a SIGTERM.
 */
const measure = async (rpc: LoopbackRpc, dataDir: string, idle: number): Promise<Run> => {
  const port = await freePort()
  const started = performance.now()
  const service = start(rpc, dataDir, port)
  const pid = service.child.pid
  if (pid === undefined) throw new Error("the service did not spawn")
  const peak = { rss: 0, pss: 0 }
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const now = memory(pid)
      peak.rss = Math.max(peak.rss, now.rss)
      peak.pss = Math.max(peak.pss, now.pss)
      await sleep(100)
    }
  })()
  let liveMs: number | undefined
  let liveCpu = { service: 0, postgres: 0 }
  let readyMs: number | undefined
  while (readyMs === undefined) {
    if (service.child.exitCode !== null) throw new Error(`the service exited while starting:\n${service.output()}`)
    if (performance.now() - started > 60_000) throw new Error(`no /health 200 within 60 s:\n${service.output()}`)
    const path = liveMs === undefined ? "/health/live" : "/health"
    const ok = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status === 200, () => false)
    if (ok && liveMs === undefined) {
      liveMs = performance.now() - started
      liveCpu = cpu(pid)
    }
    else if (ok) readyMs = performance.now() - started
    else await sleep(10)
  }
  await sleep(idle / 2)
  const cpuFrom = cpu(pid)
  const cpuAt = performance.now()
  await sleep(idle / 2)
  const cpuTo = cpu(pid)
  const seconds = (performance.now() - cpuAt) / 1000
  const idleCpu = { service: (cpuTo.service - cpuFrom.service) / seconds, postgres: (cpuTo.postgres - cpuFrom.postgres) / seconds }
  sampling = false
  await sampler
  const idleMemory = memory(pid)
  const stopping = performance.now()
  service.child.kill("SIGTERM")
  const code = await service.exited
  if (code !== 0) throw new Error(`the service exited with ${code} on SIGTERM:\n${service.output()}`)
  return { liveMs: liveMs!, liveCpu, readyMs, peak, idle: idleMemory, idleCpu, stopMs: performance.now() - stopping }
}

/**
 * What main.ts loads, as it decides it: a stale bundle (any edit under src/ since the last build) has the service load
 * ~2,000 modules from source, about a second slower and twice the memory; figures of such runs are not the bundle's.
 */
const stale = freshBundle(root) === undefined
const loads = stale ? "the source (dist/server/launch.mjs is missing or older than src/: npm run build)" : "dist/server/launch.mjs"
if (stale) console.warn(`the service will load ${loads}`)

const rpc = await LoopbackRpc.start({ ledgerIntervalMs: 1_000 })
const fresh: Array<Run> = []
const existing: Array<Run> = []
try {
  for (let i = 0; i < runs; i++) {
    const dataDir = await mkdtemp(Path.join(tmpdir(), "payroll-bench-startup-"))
    try {
      fresh.push(await measure(rpc, dataDir, idleMs))
      existing.push(await measure(rpc, dataDir, 500))
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
    const times = (run: Run) => `${fixed(run.liveMs, 0)} / ${fixed(run.readyMs, 0)} ms`
    console.log(`run ${i + 1}/${runs} (/health/live / /health): fresh ${times(fresh[i]!)}, existing ${times(existing[i]!)}`)
  }
} finally {
  await rpc.close()
}

const summary = (label: string, values: ReadonlyArray<number>, digits = 0) => {
  const sorted = ascending(values)
  return [label, fixed(percentile(sorted, 50), digits), fixed(sorted[0]!, digits), fixed(sorted[sorted.length - 1]!, digits)]
}
console.log(
  `\nnode ${[...nodeFlags, "src/Server/main.ts"].join(" ")} without DATABASE_URL (embedded PostgreSQL), loading ${loads}, ` +
    `${runs} runs, idle after ${idleMs} ms; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`
)
console.log(table(["measure", "median", "min", "max"], [
  summary("fresh DATA_DIR → /health/live 200 (ms)", fresh.map((r) => r.liveMs)),
  summary("fresh DATA_DIR → /health 200 (ms)", fresh.map((r) => r.readyMs)),
  summary("existing DATA_DIR → /health/live 200 (ms)", existing.map((r) => r.liveMs)),
  summary("existing DATA_DIR → /health 200 (ms)", existing.map((r) => r.readyMs)),
  summary("fresh DATA_DIR, service CPU to /health/live (ms)", fresh.map((r) => r.liveCpu.service)),
  summary("existing DATA_DIR, service CPU to /health/live (ms)", existing.map((r) => r.liveCpu.service)),
  summary("existing DATA_DIR, PostgreSQL CPU to /health/live (ms)", existing.map((r) => r.liveCpu.postgres)),
  summary("idle RSS, all processes (MiB)", fresh.map((r) => r.idle.rss)),
  summary("idle PSS, all processes (MiB)", fresh.map((r) => r.idle.pss)),
  summary("peak RSS while starting (MiB)", fresh.map((r) => r.peak.rss)),
  summary("peak PSS while starting (MiB)", fresh.map((r) => r.peak.pss)),
  summary("processes when idle", fresh.map((r) => r.idle.processes)),
  summary("idle CPU, service (ms per s)", fresh.map((r) => r.idleCpu.service), 1),
  summary("idle CPU, PostgreSQL (ms per s)", fresh.map((r) => r.idleCpu.postgres), 1),
  summary("SIGTERM → exit (ms)", [...fresh, ...existing].map((r) => r.stopMs))
]))
