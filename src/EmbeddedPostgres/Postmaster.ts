// The embedded cluster's server process (the postmaster), in plain Node like FirstStart.ts: `main.ts` starts it before
// it loads the rest of the service, so that PostgreSQL starts (about 0.1 s, after initdb on a first start) while the
// modules load; the database layer (src/EmbeddedPostgres/Embedded.ts) then takes over the starting server, or starts one itself
// when nothing did (tests, benchmarks). What is done here is said to the database layer as events, which it logs.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createServer } from "node:net"
import * as Path from "node:path"
import { type PreparedCluster, prepareCluster, serverEnv } from "./FirstStart.ts"
import { alive } from "./Process.ts"

export const HOST = "127.0.0.1"
/** DATA_DIR/pg.starter: the pid of the process that started the running cluster. */
const STARTER = "pg.starter"

export interface ClusterOptions {
  /** The cluster lives in `dataDir/pg`, its password in `dataDir/pg.password`. */
  readonly dataDir: string
  /** Off only for throw-away clusters (tests, benchmarks): fsync and synchronous commit off, initdb unsynced. */
  readonly durable: boolean
  readonly maxConnections: number
}

/**
 * The settings of the service's own cluster, as the database layer (src/Sql/PgLive.ts) starts it: `main.ts` starts it
 * early with these, and a layer asking for others is refused the early server (`claimPostmaster`).
 */
export const SERVICE_CLUSTER = { durable: true, maxConnections: 40 } as const

export interface Postmaster {
  readonly child: ChildProcess
  readonly port: number
  readonly password: string
}

export type PostmasterEvent =
  /** A line the server wrote to its stderr. */
  | { readonly _tag: "Line"; readonly line: string }
  /** A server of this cluster left running by a process that was killed is being stopped. */
  | { readonly _tag: "StoppingLeftover"; readonly pid: number }

export interface PostmasterStart {
  /**
   * Settles once the postmaster is spawned, once the start waits for something slow (initdb on a first start, the
   * exit of a server a killed process left running), or once it failed: never rejects.
   */
  readonly underway: Promise<void>
  /** The server, once it accepts connections; a failure here is the database layer's to report. */
  readonly ready: Promise<Postmaster>
  /** Every event so far (kept until the first follower comes), then each as it happens. */
  readonly follow: (listener: (event: PostmasterEvent) => void) => void
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, HOST, () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const readOrUndefined = (path: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** A process's command line, from /proc or else `ps`; empty when it is gone. */
const commandLine = (pid: number) => {
  const line = readOrUndefined(`/proc/${pid}/cmdline`)
  if (line !== undefined) return line.replaceAll("\0", " ")
  try {
    return execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8" })
  } catch {
    return ""
  }
}

const parentOf = (pid: number) => {
  const stat = readOrUndefined(`/proc/${pid}/stat`)
  if (stat !== undefined) return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  try {
    return Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8" }).trim())
  } catch {
    return Number.NaN
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Whether `pid` is gone within `ms`, looked at every 50 ms. */
const exitsWithin = async (pid: number, ms: number) => {
  const until = Date.now() + ms
  while (alive(pid)) {
    if (Date.now() >= until) return false
    await sleep(50)
  }
  return true
}

/**
 * After a crash the lock file outlives the service: a postmaster of this data directory that is still running
 * because the process that started it was killed (it is no longer the postmaster's parent) is shut down, and a lock
 * naming a process that is gone or is something else (its pid reused) is removed, so the next start is not refused.
 * A postmaster whose starter still runs belongs to another live service on the same DATA_DIR: that is refused.
 * The look is synchronous (a few small files): `main.ts` waits for it before loading the service.
 */
const clearStaleLock = async ({ dataDir, pgDir }: PreparedCluster, emit: (event: PostmasterEvent) => void, waiting: () => void) => {
  const lockFile = Path.join(pgDir, "postmaster.pid")
  const lock = readOrUndefined(lockFile)
  if (lock === undefined) return
  const pid = Number(lock.split("\n")[0])
  if (Number.isInteger(pid) && pid > 0 && alive(pid) && commandLine(pid).includes(pgDir)) {
    const starter = Number(readOrUndefined(Path.join(dataDir, STARTER)) ?? Number.NaN)
    if (parentOf(pid) === starter && alive(starter)) {
      throw new Error(`${pgDir} is in use by another running process (pid ${starter}): one service per DATA_DIR`)
    }
    emit({ _tag: "StoppingLeftover", pid })
    waiting()
    process.kill(pid, "SIGINT")
    if (!(await exitsWithin(pid, 30_000))) {
      process.kill(pid, "SIGQUIT")
      if (!(await exitsWithin(pid, 5_000))) throw new Error(`an earlier embedded PostgreSQL (pid ${pid}) on ${pgDir} does not stop`)
    }
  }
  rmSync(lockFile, { force: true })
}

const tuning = (options: ClusterOptions): Array<string> => [
  `listen_addresses=${HOST}`,
  "unix_socket_directories=",
  `max_connections=${options.maxConnections}`,
  "shared_buffers=32MB",
  "huge_pages=off",
  "jit=off",
  "wal_level=minimal",
  "max_wal_senders=0",
  "max_logical_replication_workers=0",
  "io_method=sync",
  "log_min_messages=warning",
  "log_min_error_statement=panic",
  "log_checkpoints=off",
  ...(options.durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"])
]

/**
 * Spawns the postmaster in its own process group (a Ctrl-C meant for the service must not stop it mid-drain); it is
 * ready once its lock file says so. One that exits or is not ready within 60 s fails the start (and is stopped).
 */
const launch = (cluster: PreparedCluster, options: ClusterOptions, port: number, emit: (event: PostmasterEvent) => void) => {
  const args = ["-D", cluster.pgDir, "-p", String(port), ...tuning(options).flatMap((setting) => ["-c", setting])]
  const child = spawn(cluster.binaries.postgres, args, { ...cluster.owner, env: serverEnv(), detached: true, stdio: ["ignore", "ignore", "pipe"] })
  const recent: Array<string> = []
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    for (const line of chunk.split("\n").filter((l) => l !== "")) {
      recent.push(line)
      if (recent.length > 20) recent.shift()
      emit({ _tag: "Line", line })
    }
  })
  let spawnFailed = false
  child.once("error", (e) => {
    spawnFailed = true
    recent.push(String(e))
  })
  const lockFile = Path.join(cluster.pgDir, "postmaster.pid")
  const until = Date.now() + 60_000
  const accepting = async (): Promise<void> => {
    for (;;) {
      const lock = await readFile(lockFile, "utf8").catch(() => "")
      if (lock.split("\n")[7]?.trim() === "ready") return
      const exited = spawnFailed || child.exitCode !== null || child.signalCode !== null
      if (exited || Date.now() >= until) {
        child.kill("SIGQUIT")
        throw new Error(`the embedded PostgreSQL ${exited ? "exited while starting" : "did not become ready within 60 s"}: ${recent.join(" | ")}`)
      }
      await sleep(20)
    }
  }
  return { child, accepting: accepting() }
}

/**
 * The server's start, from the cluster's preparation (initdb on a first start) to the first connection it accepts,
 * and a way to stop its server at once without waiting (for a process exiting before the database layer took it over).
 */
const begin = (options: ClusterOptions): { readonly start: PostmasterStart; readonly abandon: () => void } => {
  const kept: Array<PostmasterEvent> = []
  let listener: ((event: PostmasterEvent) => void) | undefined
  const emit = (event: PostmasterEvent) => (listener === undefined ? void kept.push(event) : listener(event))
  let settleUnderway = () => {}
  const underway = new Promise<void>((resolve) => (settleUnderway = resolve))
  let spawned: ChildProcess | undefined
  const ready = (async () => {
    // initdb (about a second) is worth loading the service meanwhile: it is spawned before the first await.
    if (!existsSync(Path.join(Path.resolve(options.dataDir), "pg", "PG_VERSION"))) settleUnderway()
    const cluster = await prepareCluster(options.dataDir, options.durable)
    await clearStaleLock(cluster, emit, settleUnderway)
    try {
      writeFileSync(Path.join(cluster.dataDir, STARTER), String(process.pid))
    } catch (cause) {
      throw new Error(`cannot write ${cluster.dataDir}`, { cause })
    }
    // A port taken between the probe and the bind fails the start: another is tried, twice at most.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort().catch((cause: unknown) => {
        throw new Error("no free loopback port", { cause })
      })
      const { child, accepting } = launch(cluster, options, port, emit)
      spawned = child
      settleUnderway()
      try {
        await accepting
        return { child, port, password: cluster.password }
      } catch (error) {
        if (attempt === 3 || !/could not bind|already in use/.test((error as Error).message)) throw error
      }
    }
  })()
  // Nobody may ever take this start (a refused setting ends the process first): its failure is not an unhandled one.
  ready.then(settleUnderway, settleUnderway)
  return {
    start: {
      underway,
      ready,
      follow: (follower) => {
        listener = follower
        for (const event of kept.splice(0)) follower(event)
      }
    },
    abandon: () => void (spawned?.exitCode === null && spawned.signalCode === null && spawned.kill("SIGINT"))
  }
}

/**
 * Fast shutdown (SIGINT), waited for; `slow` is told when it takes more than 30 s, and the server is then stopped
 * immediately (SIGQUIT), waited for 5 s more.
 */
export const stopPostmaster = async (child: ChildProcess, slow: () => void): Promise<void> => {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<boolean>((resolve) => child.once("exit", () => resolve(true)))
  const within = (ms: number) => {
    let timer: NodeJS.Timeout | undefined
    return Promise.race([exited, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]).finally(() => clearTimeout(timer))
  }
  child.kill("SIGINT")
  if (await within(30_000)) return
  slow()
  child.kill("SIGQUIT")
  await within(5_000)
}

interface Early {
  readonly options: ClusterOptions
  readonly start: PostmasterStart
  readonly atExit: () => void
}

/**
 * Kept on the process, not the module: `npm start` starts the server from this file as source (src/Server/main.ts) and then
 * loads the service from its bundle, which holds a second copy of this module; both must see the same start.
 */
const EARLY = Symbol.for("confidential-payroll/early-postmasters")
const early: Map<string, Early> = ((globalThis as Record<symbol, unknown>)[EARLY] ??= new Map()) as Map<string, Early>

const clusterDir = (options: ClusterOptions) => Path.join(Path.resolve(options.dataDir), "pg")

/**
 * Starts the cluster's server ahead of the database layer, which takes it over with `claimPostmaster`. A server
 * nobody took over when the process exits (its settings were refused first) is stopped with it.
 */
export const startPostmaster = (options: ClusterOptions): PostmasterStart => {
  const { start, abandon: atExit } = begin(options)
  process.once("exit", atExit)
  early.set(clusterDir(options), { options, start, atExit })
  return start
}

/**
 * The server `main.ts` started for this cluster (once: a later call starts another), else a new start. Settings other
 * than those it was started with are a mistake in the code (main.ts and the database layer disagree): said so.
 */
export const claimPostmaster = (options: ClusterOptions): PostmasterStart => {
  const pgDir = clusterDir(options)
  const found = early.get(pgDir)
  if (found === undefined) return begin(options).start
  if (found.options.durable !== options.durable || found.options.maxConnections !== options.maxConnections) {
    const refused = Promise.reject(new Error(`the embedded PostgreSQL in ${pgDir} was started with other settings than the database layer asks for (${JSON.stringify(found.options)})`))
    return { underway: Promise.resolve(), ready: refused, follow: () => {} }
  }
  early.delete(pgDir)
  process.off("exit", found.atExit)
  return found.start
}
