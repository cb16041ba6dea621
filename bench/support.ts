// Shared pieces of the benchmarks (bench/transfer.ts, bench/batch-run.ts): the parent/child protocol, a lean HTTP
// client, the HS256 JWTs the baseline accepts, the employer's transaction builder and the statistics.
import { Account, Address, Keypair, Networks, Operation, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { execFileSync, fork } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { Agent, request } from "node:http"
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { platform, tmpdir } from "node:os"
import * as Path from "node:path"
import { performance } from "node:perf_hooks"
import pg from "pg"
import { sourceAuthorization, transferData } from "../test/support/ConfidentialData.ts"
import type { LoopbackRpc } from "../test/support/LoopbackRpc.ts"

// ---- the two systems under test run as child processes, spoken to over IPC ----

/** What a child process reports about itself: cumulative figures since it started. */
export interface ChildStats {
  /** CPU time (user + system, every thread of the process), microseconds. */
  readonly cpuMicros: number
  /** The main thread's event loop: time spent running callbacks (`active`) and waiting (`idle`), milliseconds. */
  readonly eluActiveMs: number
  readonly eluIdleMs: number
  /** Resident set size now, and the peak so far, bytes. */
  readonly rssBytes: number
  readonly maxRssBytes: number
}

type ToChild = { readonly type: "cpu" } | { readonly type: "stats" } | { readonly type: "stop" }
type FromChild =
  | { readonly type: "ready"; readonly url: string }
  | { readonly type: "cpu"; readonly micros: number }
  | { readonly type: "stats"; readonly stats: ChildStats }
  | { readonly type: "stopped" }

/** In a child: reports the URL, answers CPU-time questions, stops on request (or when the parent goes away). */
export const serveAsChild = (url: string, stop: () => Promise<void>): void => {
  const send = (message: FromChild) => process.send?.(message)
  let stopping = false
  const shutdown = async () => {
    if (stopping) return
    stopping = true
    try {
      await stop()
    } finally {
      if (process.connected) send({ type: "stopped" })
      process.exit(0)
    }
  }
  process.on("message", (message: ToChild) => {
    if (message.type === "cpu") {
      const usage = process.cpuUsage()
      send({ type: "cpu", micros: usage.user + usage.system })
    }
    if (message.type === "stats") {
      const usage = process.cpuUsage()
      const elu = performance.eventLoopUtilization()
      send({
        type: "stats",
        stats: {
          cpuMicros: usage.user + usage.system,
          eluActiveMs: elu.active,
          eluIdleMs: elu.idle,
          rssBytes: process.memoryUsage.rss(),
          maxRssBytes: process.resourceUsage().maxRSS * 1024
        }
      })
    }
    if (message.type === "stop") void shutdown()
  })
  process.on("disconnect", () => void shutdown())
  send({ type: "ready", url })
}

export interface Child {
  readonly name: string
  readonly url: string
  /** CPU time (user + system) the child has used so far, in microseconds. */
  readonly cpuMicros: () => Promise<number>
  /** CPU time, event-loop activity and memory of the child so far (see ChildStats). */
  readonly stats: () => Promise<ChildStats>
  readonly stop: () => Promise<void>
}

/** Forks `script` (a .ts file next to this one) on this Node, with exactly `env`, and waits until it serves. */
export const startChild = (name: string, script: string, env: Readonly<Record<string, string>>): Promise<Child> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = fork(new URL(script, import.meta.url), [], {
      env: { ...env },
      // BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile there when it exits (`node --cpu-prof`).
      execArgv: process.env.BENCH_CPU_PROF === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const waiting: Array<(message: FromChild) => boolean> = []
    child.on("message", (message: FromChild) => {
      const index = waiting.findIndex((accepts) => accepts(message))
      if (index >= 0) waiting.splice(index, 1)
    })
    const next = <T>(pick: (message: FromChild) => T | undefined) =>
      new Promise<T>((done) =>
        waiting.push((message) => {
          const value = pick(message)
          if (value === undefined) return false
          done(value)
          return true
        })
      )
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.once("exit", (code) => reject(new Error(`${name} exited with code ${code} before it was ready`)))
    void next((m) => (m.type === "ready" ? m.url : undefined)).then((url) =>
      resolve({
        name,
        url,
        cpuMicros: () => {
          const answer = next((m) => (m.type === "cpu" ? m.micros : undefined))
          child.send({ type: "cpu" } satisfies ToChild)
          return answer
        },
        stats: () => {
          const answer = next((m) => (m.type === "stats" ? m.stats : undefined))
          child.send({ type: "stats" } satisfies ToChild)
          return answer
        },
        stop: async () => {
          if (child.exitCode === null && child.connected) child.send({ type: "stop" } satisfies ToChild)
          const killer = setTimeout(() => child.kill("SIGKILL"), 15_000)
          await exited
          clearTimeout(killer)
        }
      })
    )
  })

// ---- HTTP ----

export interface Reply {
  readonly status: number
  readonly body: any
}

/** One request over `agent` (keep-alive), the body parsed as JSON when it is JSON. */
export const call = (
  agent: Agent,
  base: string,
  method: "GET" | "POST",
  path: string,
  options: { readonly json?: unknown; readonly token?: string; readonly headers?: Readonly<Record<string, string>> } = {}
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const payload = options.json === undefined ? undefined : JSON.stringify(options.json)
    const headers: Record<string, string | number> = { ...options.headers }
    if (payload !== undefined) {
      headers["content-type"] = "application/json"
      headers["content-length"] = Buffer.byteLength(payload)
    }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("error", reject)
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let body: unknown = text
          try {
            body = JSON.parse(text)
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body })
        })
      }
    )
    req.on("error", reject)
    req.end(payload)
  })

// ---- sessions the baseline accepts: HS256 JWTs, the same claims as the service's ----

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

export const signJwt = (secret: string, issuer: string, sub: string, ttlSeconds = 3600): string => {
  const now = Math.floor(Date.now() / 1000)
  const head = `${b64url({ alg: "HS256", typ: "JWT" })}.${
    b64url({ method: "sep10", iss: issuer, sub, iat: now, exp: now + ttlSeconds, jti: randomUUID() })
  }`
  return `${head}.${createHmac("sha256", secret).update(head).digest("base64url")}`
}

// ---- the employer's client ----

/** Recipients are opaque to the service; a fixed set keeps key generation out of the measured loop. */
const RECIPIENT_KEYS = Array.from({ length: 32 }, () => Keypair.random().publicKey())
const RECIPIENTS = RECIPIENT_KEYS.map((key) => Address.fromString(key).toScVal())
/**
 * Real-size `data` (a 14,592-byte stand-in proof: an UltraHonk proof as the token's circuits produce it today), a pool
 * of them made once so the client's CPU stays out of the loop.
 */
const DATA = Array.from({ length: 32 }, () => xdr.ScVal.scvBytes(transferData()))

/** The OpenZeppelin confidential token emulated at `contract`, with the recipients registered. */
export const deployToken = (rpc: LoopbackRpc, contract: string): void => {
  rpc.deployConfidentialToken(contract)
  for (const key of RECIPIENT_KEYS) rpc.registerConfidential(contract, key)
}

/** An employer wallet: an account on the loopback ledger, registered with the token so it can send. */
export const addWallet = (rpc: LoopbackRpc, contract: string, wallet: Keypair): void => {
  rpc.setAccount({ id: wallet.publicKey() })
  rpc.registerConfidential(contract, wallet.publicKey())
}

/**
 * `confidential_transfer(from, to, data)` signed by `wallet`, for sequence `current + 1`, valid for
 * `validForSeconds` (default 60 s), inner fee 1001 stroops, with the source account's authorization entry a client
 * gets from simulation: what test/support/Transfer.ts's `innerTransfer` builds (about 31 KB of XDR). `to` is one of
 * the recipients `deployToken` registers, at random, unless given (it must be registered with the token too).
 */
export const transferXdr = (
  wallet: Keypair,
  current: bigint,
  contract: string,
  passphrase = Networks.TESTNET,
  validForSeconds = 60,
  to?: string
): string => {
  const args = [
    Address.fromString(wallet.publicKey()).toScVal(),
    to === undefined ? RECIPIENTS[Math.floor(Math.random() * RECIPIENTS.length)]! : Address.fromString(to).toScVal(),
    DATA[Math.floor(Math.random() * DATA.length)]!
  ]
  const tx = new TransactionBuilder(new Account(wallet.publicKey(), current.toString()), { fee: "1001", networkPassphrase: passphrase })
    .addOperation(Operation.invokeContractFunction({
      contract,
      function: "confidential_transfer",
      args,
      auth: [sourceAuthorization(contract, "confidential_transfer", args)]
    }))
    .setTimeout(validForSeconds)
    .build()
  tx.sign(wallet)
  return tx.toXDR()
}

// ---- the service as a bench child ----

/** The environment a child gets: only the few variables a process needs from this one, plus `extra`. */
export const childEnv = (extra: Record<string, string>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return { ...env, ...extra }
}

/** The reply's JSON body, or a thrown error naming `what` when it is not a 200. */
export const expectOk = (what: string, reply: Reply) => {
  if (reply.status !== 200) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`)
  return reply.body
}

/**
 * The service's settings in a benchmark: `db`, the loopback RPC, fresh keys (`sponsor` pays the fees), the token
 * `contract` allowed by the sponsor, sign-in and the archive not rate-limited (each request still counted), issuer
 * `issuer`; `extra` adds or overrides.
 */
export const serviceEnv = (
  rpc: { readonly url: string },
  db: BenchDatabase,
  options: { readonly sponsor: Keypair; readonly contract?: string; readonly issuer: string },
  extra: Record<string, string> = {}
): Record<string, string> =>
  childEnv({
    DATA_DIR: db.dataDir,
    ...(db.url === undefined ? {} : { DATABASE_URL: db.url }),
    STELLAR_RPC_URL: rpc.url,
    NETWORK_PASSPHRASE: Networks.TESTNET,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    SEP10_SIGNING_SECRET: Keypair.random().secret(),
    SPONSOR_SECRET: options.sponsor.secret(),
    FAUCET_SECRET: Keypair.random().secret(),
    ...(options.contract === undefined ? {} : { CONFIDENTIAL_TOKEN_CONTRACT: options.contract, SPONSOR_ALLOWED_CONTRACTS: options.contract }),
    AUTH_RATE_LIMIT: "1000000",
    ARCHIVE_RATE_LIMIT: "1000000000",
    PUBLIC_URL: options.issuer,
    ...extra
  })

/** A system under measurement: the service, or a framework-free baseline doing the same work. */
export interface System {
  readonly name: "service" | "baseline"
  readonly child: Child
  /** Makes `wallet` an employer with its own organization; returns its session token. */
  readonly enroll: (agent: Agent, wallet: Keypair) => Promise<string>
}

/** SEP-10 sign-in of `wallet` at the service on `url` (its account must be on the loopback ledger): the session token. */
export const sep10SignIn = async (agent: Agent, url: string, wallet: Keypair): Promise<string> => {
  const challenge = expectOk("challenge", await call(agent, url, "GET", `/auth/sep10/challenge?account=${wallet.publicKey()}`))
  const tx = TransactionBuilder.fromXDR(challenge.transaction, challenge.network_passphrase)
  tx.sign(wallet)
  const verified = expectOk("verify", await call(agent, url, "POST", "/auth/sep10/verify", { json: { transaction: tx.toXDR() } }))
  return verified.token as string
}

/** The session's account creates its own organization (`POST /orgs`, the service's or a baseline's). */
export const createOrg = async (agent: Agent, url: string, token: string, name = "Bench Co"): Promise<void> => {
  expectOk("org", await call(agent, url, "POST", "/orgs", { token, json: { name } }))
}

// ---- statistics ----

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export const ascending = (values: ReadonlyArray<number>): Array<number> => [...values].sort((a, b) => a - b)

export const fixed = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : "-")

/** Plain text table: columns padded to their widest cell, the first column left-aligned, the rest right-aligned. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n")
}

export const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`)
  return value
}

// ---- databases (dropped on the way out, Ctrl-C included) ----

export interface BenchDatabase {
  readonly dataDir: string
  readonly url: string | undefined
  readonly drop: () => Promise<void>
}

const liveDatabases = new Set<BenchDatabase>()
// Only the driver: a child (the service, a baseline) stops when the driver disconnects, which stops its embedded
// cluster with it; exiting on the terminal's Ctrl-C would leave the cluster running.
if (process.send !== undefined) process.on("SIGINT", () => undefined)
else {
  process.once("SIGINT", () => {
    process.stderr.write("interrupted: dropping the benchmark's databases\n")
    void Promise.allSettled([...liveDatabases].map((db) => db.drop())).then(() => process.exit(130))
  })
}

/**
 * A fresh embedded data directory, or (with `serverUrl`) a fresh database on that PostgreSQL server; both are
 * removed by `drop`, or on Ctrl-C.
 */
export const freshDatabase = async (label: string, serverUrl: string | undefined): Promise<BenchDatabase> => {
  const dataDir = await mkdtemp(Path.join(tmpdir(), `payroll-bench-${label}-`))
  const removeDir = () => rm(dataDir, { recursive: true, force: true })
  const track = (db: BenchDatabase): BenchDatabase => {
    const tracked: BenchDatabase = {
      ...db,
      drop: async () => {
        liveDatabases.delete(tracked)
        await db.drop()
      }
    }
    liveDatabases.add(tracked)
    return tracked
  }
  if (serverUrl === undefined) return track({ dataDir, url: undefined, drop: removeDir })
  const name = `payroll_bench_${label.replace(/[^a-z0-9]/gi, "_")}_${randomBytes(4).toString("hex")}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return track({
    dataDir,
    url: url.toString(),
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await removeDir()
    }
  })
}

/**
 * How to reach `db` directly (bench set-up SQL): the server's database, or database `embeddedDatabase` of the embedded
 * cluster a process started in its `dataDir` (the port in `pg/postmaster.pid`, the password in `pg.password`, as
 * src/EmbeddedPostgres/Embedded.ts keeps them; a baseline's tables are in `baseline`, see bench/baseline-http.ts).
 */
export const databaseConnection = async (db: BenchDatabase, embeddedDatabase = "postgres"): Promise<pg.ClientConfig> => {
  if (db.url !== undefined) return { connectionString: db.url }
  const pid = await readFile(Path.join(db.dataDir, "pg", "postmaster.pid"), "utf8")
  const password = (await readFile(Path.join(db.dataDir, "pg.password"), "utf8")).trim()
  return { host: "127.0.0.1", port: Number(pid.split("\n")[3]), user: "postgres", password, database: embeddedDatabase }
}

// ---- CPU of an embedded cluster ----

/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/**
 * CPU time (ms, user + system) of the embedded PostgreSQL cluster in `db`'s data directory so far: its postmaster,
 * the children it has reaped, and its live children (backends, checkpointer, WAL writer, ...), from /proc. Undefined
 * for a server database, or off Linux.
 */
export const clusterCpuMs = async (db: BenchDatabase): Promise<number | undefined> => {
  if (db.url !== undefined || platform() !== "linux") return undefined
  const pidFile = await readFile(Path.join(db.dataDir, "pg", "postmaster.pid"), "utf8").catch(() => undefined)
  const postmaster = Number(pidFile?.split("\n")[0])
  if (!Number.isInteger(postmaster) || postmaster <= 0) return undefined
  let ticks = 0
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => undefined)
    if (stat === undefined) continue
    // after "pid (comm) ": state, ppid, ... utime (14th field), stime, cutime, cstime
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number)
    const [utime, stime, cutime, cstime] = [fields[11]!, fields[12]!, fields[13]!, fields[14]!]
    if (Number(entry) === postmaster) ticks += utime + stime + cutime + cstime
    else if (fields[1] === postmaster) ticks += utime + stime
  }
  return (ticks * 1000) / clockTicks
}
