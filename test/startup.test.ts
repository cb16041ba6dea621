import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { call, employer, signIn } from "./support/Client.ts"
import { alive, stopLeftoverCluster } from "./support/EmbeddedCluster.ts"
import { runToExit, spawnService, withoutDatabaseUrl } from "./support/Spawned.ts"
import { freePort, loopbackRpc } from "./support/TestApp.ts"
import { backend, freshDatabase } from "./support/TestDatabase.ts"

type Attempt = "refused" | "answered" | "hung"

/** One request that either cannot connect, is answered, or is left hanging (no answer within `patienceMs`). */
const attempt = (url: string, patienceMs: number): Promise<{ kind: Attempt; status?: number }> =>
  fetch(url, { signal: AbortSignal.timeout(patienceMs) }).then(
    async (response) => {
      await response.arrayBuffer()
      return { kind: "answered" as const, status: response.status }
    },
    (e: unknown) => ({ kind: (e instanceof Error && e.name === "TimeoutError" ? "hung" : "refused") as Attempt })
  )



/** A loopback port something else listens on, for as long as the scope lasts. */
const takenPort = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ port: number; close: () => Promise<void> }>((resolve) => {
      const holder = createServer().listen(0, "127.0.0.1", () => {
        const address = holder.address()
        resolve({
          port: typeof address === "object" && address !== null ? address.port : 0,
          close: () => new Promise((closed) => holder.close(() => closed()))
        })
      })
    })
  ),
  ({ close }) => Effect.promise(close)
)

/** The postmaster's pid from the lock file of DATA_DIR's embedded cluster, if there is one. */
const lockedPid = (dataDir: string) =>
  readFile(Path.join(dataDir, "pg", "postmaster.pid"), "utf8").then((lock) => Number(lock.split("\n")[0]), () => undefined)

/**
 * A fresh DATA_DIR for the service's own embedded cluster. When the scope closes, a cluster a killed service left
 * running is stopped (immediate shutdown) before the directory is removed.
 */
const embeddedDataDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(Path.join(tmpdir(), "payroll-startup-"))),
  (dir) =>
    Effect.promise(async () => {
      await stopLeftoverCluster(dir)
      await rm(dir, { recursive: true, force: true })
    })
)

describe("start-up", () => {
  it.live("`npm start`'s process opens its socket only when it can answer: every early request is refused or answered", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(1000)
      // On the embedded backend the service starts its own cluster in a fresh DATA_DIR (initdb included).
      const database = backend === "embedded"
        ? { DATA_DIR: yield* embeddedDataDir }
        : yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const port = yield* Effect.promise(freePort)
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, ["src/Server/main.ts"], {
            env: { ...withoutDatabaseUrl(), ...database, PORT: String(port), STELLAR_RPC_URL: rpc.url, FRIENDBOT_URL: rpc.url },
            stdio: "ignore"
          })
        ),
        (process) => Effect.sync(() => process.kill("SIGKILL"))
      )
      const url = `http://127.0.0.1:${port}/health`
      const attempts = yield* Effect.promise(async () => {
        const started = Date.now()
        const pending: Array<Promise<{ kind: Attempt; status?: number }>> = []
        let answered = false
        // A request every 10 ms, each with 10 s of patience, until one is answered (at most 60 s of start-up).
        while (!answered && Date.now() - started < 60_000 && child.exitCode === null) {
          const next = attempt(url, 10_000)
          pending.push(next)
          void next.then((a) => { if (a.kind === "answered") answered = true })
          await new Promise((r) => setTimeout(r, 10))
        }
        return Promise.all(pending)
      })
      const kinds = attempts.map((a) => a.kind)
      expect(child.exitCode).toBeNull()
      expect(kinds).toContain("answered")
      expect(kinds).not.toContain("hung")
      expect(attempts.filter((a) => a.kind === "answered").every((a) => a.status === 200)).toBe(true)
    }).pipe(Effect.scoped), 120_000)

  it.live("without DATABASE_URL: the embedded cluster keeps its data across a restart, a foreign lock file and a SIGKILL; a second service on its DATA_DIR is refused", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(1000)
      const dataDir = yield* embeddedDataDir
      const env = { DATA_DIR: dataDir }
      const readyAndKnows = (service: Effect.Effect.Success<ReturnType<typeof spawnService>>, wallet: Parameters<typeof signIn>[1], orgId: string) =>
        Effect.gen(function*() {
          expect((yield* call(service.app, "GET", "/health")).status).toBe(200)
          const token = yield* signIn(service.app, wallet)
          const me = yield* call(service.app, "GET", "/me", { token })
          expect(me.status).toBe(200)
          expect(JSON.stringify(me.body)).toContain(orgId)
        })

      // First start: initdb, then a clean stop on SIGTERM that leaves no server and no lock file behind.
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const service = yield* spawnService(rpc, env)
        const created = yield* employer(service.app, "Persistent Co")
        const pid = yield* Effect.promise(() => lockedPid(dataDir))
        service.child.kill("SIGTERM")
        const exit = yield* Effect.promise(() => service.exited)
        return { ...created, pid, exit }
      }))
      expect(first.exit.code).toBe(0)
      expect(first.pid).toBeDefined()
      expect(alive(first.pid!)).toBe(false)
      expect(yield* Effect.promise(() => lockedPid(dataDir))).toBeUndefined()

      // A lock file naming a live process that is not this cluster's postmaster (a reused pid) does not block.
      yield* Effect.promise(() => writeFile(Path.join(dataDir, "pg", "postmaster.pid"), `${process.pid}\n${dataDir}/pg\n`))
      const second = yield* Effect.scoped(Effect.gen(function*() {
        const service = yield* spawnService(rpc, env)
        yield* readyAndKnows(service, first.wallet, first.orgId)
        // A second service on the same DATA_DIR is refused and leaves the running one alone.
        const intruder = yield* Effect.promise(async () => {
          const child = spawn(process.execPath, ["src/Server/main.ts"], {
            env: { ...withoutDatabaseUrl(), ...env, PORT: String(await freePort()), STELLAR_RPC_URL: rpc.url, FRIENDBOT_URL: rpc.url },
            stdio: ["ignore", "pipe", "pipe"]
          })
          let output = ""
          child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
          child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
          const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
          return { code, output }
        })
        expect(intruder.code).not.toBe(0)
        expect(intruder.output).toContain("one service per DATA_DIR")
        expect((yield* call(service.app, "GET", "/health")).status).toBe(200)
        // A crash: the service dies, its cluster keeps running and holds the lock file.
        service.child.kill("SIGKILL")
        yield* Effect.promise(() => service.exited)
        return yield* Effect.promise(() => lockedPid(dataDir))
      }))
      expect(second).toBeDefined()
      expect(alive(second!)).toBe(true)

      // The next start stops the leftover cluster and starts its own on the same data.
      yield* Effect.scoped(Effect.gen(function*() {
        const service = yield* spawnService(rpc, env)
        yield* readyAndKnows(service, first.wallet, first.orgId)
        expect(alive(second!)).toBe(false)
        service.child.kill("SIGTERM")
        expect((yield* Effect.promise(() => service.exited)).code).toBe(0)
      }))
      expect(yield* Effect.promise(() => lockedPid(dataDir))).toBeUndefined()
    }).pipe(Effect.scoped), 120_000)

  it.live("refused settings stop the start at once, each named with why, in one LOG_FORMAT=json line", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const { code, lines, output } = yield* runToExit({
        LOG_FORMAT: "json",
        NODE_ENV: "production",
        DATABASE_URL: "not a url",
        STELLAR_RPC_URL: "soroban-testnet.stellar.org",
        HOST: "not a host!",
        PORT: "3000",
        WEBHOOK_MAX_ATTEMPTS: "0",
        AUDIT_CHECKPOINT_INTERVAL: "10 millis"
      })
      expect(code).toBe(1)
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(lines, output).toHaveLength(1)
      const record = JSON.parse(lines[0]!)
      expect(record.level).toBe("fatal")
      expect(record.cause).toBeUndefined()
      for (
        const why of [
          /DATABASE_URL is not a PostgreSQL URL/,
          /STELLAR_RPC_URL is not an http\(s\) URL/,
          /HOST is not an IP address or a host name/,
          /PUBLIC_URL is required when NODE_ENV=production: the session JWT issuer .* a restart on another port/,
          /WEBHOOK_MAX_ATTEMPTS must be from 1 to 50/,
          /AUDIT_CHECKPOINT_INTERVAL must be at least 1 second/
        ]
      ) expect(record.message).toMatch(why)
      expect(output).not.toMatch(/Invalid URL|ENOTFOUND|not a url/)
    }), 60_000)

  it.live("HOST=256.1.1.1, which only the default PUBLIC_URL trips on, stops the start naming HOST, not `Invalid URL`", () =>
    Effect.gen(function*() {
      // A DATABASE_URL nothing listens on: the settings are refused before any connection, and no cluster is started.
      const { code, lines, output } = yield* runToExit({ LOG_FORMAT: "json", HOST: "256.1.1.1", DATABASE_URL: "postgres://127.0.0.1:1/none" })
      expect(code).toBe(1)
      expect(lines, output).toHaveLength(1)
      const record = JSON.parse(lines[0]!)
      expect(record.level).toBe("fatal")
      expect(record.message).toMatch(/^cannot start: HOST is not an IP address or a host name/)
      expect(output).not.toMatch(/Invalid URL|TypeError/)
    }), 60_000)

  it.live("a PORT already in use is said so, and the process exits", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(1000)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const { port } = yield* takenPort
      const { code, output } = yield* runToExit({ ...database, PORT: String(port), STELLAR_RPC_URL: rpc.url, FRIENDBOT_URL: rpc.url })
      expect(code).toBe(1)
      expect(output).toMatch(new RegExp(`level=FATAL .*PORT ${port} is already in use`))
      expect(output).not.toMatch(/ServeError|An error has occurred/)
    }).pipe(Effect.scoped), 60_000)

  it.live("a Stellar RPC that does not answer is one warning at start; the service starts and /health says so", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(1000)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const { port: closed } = yield* Effect.scoped(takenPort)
      const service = yield* spawnService(rpc, { ...database, STELLAR_RPC_URL: `http://127.0.0.1:${closed}/rpc?apiKey=hidden` })
      const health = yield* call(service.app, "GET", "/health")
      expect(health.status).toBe(503)
      expect(health.body.rpc).toBe("unavailable")
      const warnings = service.output().split("\n").filter((line) => line.includes("Stellar RPC"))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/level=WARN .*STELLAR_RPC_URL\) does not answer: .+; starting anyway/)
      expect(warnings[0]).toContain(`rpc=http://127.0.0.1:${closed}`)
      expect(service.output()).not.toContain("hidden")
    }).pipe(Effect.scoped), 60_000)

  it.live.runIf(process.getuid?.() === 0)(
    "as root, a DATA_DIR the postgres user cannot reach is refused at once, naming the user, the directory and the fixes",
    () =>
      Effect.gen(function*() {
        const locked = yield* embeddedDataDir
        yield* Effect.promise(() => chmod(locked, 0o700))
        const { code, output } = yield* runToExit({ DATA_DIR: Path.join(locked, "data"), LOG_FORMAT: "logfmt" })
        expect(code).toBe(1)
        expect(output).toContain("the embedded PostgreSQL runs as the user `postgres`")
        expect(output).toContain(`cannot reach DATA_DIR (${Path.join(locked, "data")}): ${locked} (mode 0700, owner root)`)
        expect(output).toMatch(/normal user.*set DATA_DIR to a directory outside .*DATABASE_URL/)
        expect(output).not.toMatch(/initdb failed/)
      }).pipe(Effect.scoped),
    60_000
  )
})
