import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { promisify } from "node:util"
import pg from "pg"
import { startEmbedded } from "../src/EmbeddedPostgres/Embedded.ts"
import { findBinaries, schemaTemplateDir, templateDir } from "../src/EmbeddedPostgres/FirstStart.ts"
import { claimPostmaster, HOST, startPostmaster } from "../src/EmbeddedPostgres/Postmaster.ts"
import { alive, stopLeftoverCluster } from "./support/EmbeddedCluster.ts"
import { runToExit } from "./support/Spawned.ts"


/** A temporary DATA_DIR; a cluster left running in it is stopped before it is removed. */
const dataDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(Path.join(tmpdir(), "payroll-early-"))),
  (dir) =>
    Effect.promise(async () => {
      await stopLeftoverCluster(dir)
      await rm(dir, { recursive: true, force: true })
    })
)

const lockedPid = (dir: string) =>
  readFile(Path.join(dir, "pg", "postmaster.pid"), "utf8").then((lock) => Number(lock.split("\n")[0]), () => undefined)

/** The postmaster of `dir`'s cluster once it is gone (its lock file removed), or undefined after 10 s. */
const gone = (dir: string) =>
  Effect.promise(async () => {
    for (let i = 0; i < 200; i++) {
      const pid = await lockedPid(dir)
      if (pid === undefined || !alive(pid)) return true
      await new Promise((r) => setTimeout(r, 50))
    }
    return false
  })

describe("PostgreSQL started by main.ts ahead of the service", () => {
  it.live("is stopped when the process ends before the database layer took it over (a refused setting)", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      // An initialised cluster, so that main.ts starts its server before the bundle is loaded.
      yield* Effect.scoped(startEmbedded({ dataDir: dir, durable: false, maxConnections: 10 }))
      const { code, output, pid } = yield* runToExit({ DATA_DIR: dir, HOST: "not a host!", LOG_FORMAT: "logfmt" })
      expect(code).toBe(1)
      expect(output).toContain("HOST is not an IP address or a host name")
      // It got as far as starting the server: the starter it wrote is that process.
      expect(Number(yield* Effect.promise(() => readFile(Path.join(dir, "pg.starter"), "utf8")))).toBe(pid)
      expect(yield* gone(dir)).toBe(true)
    }).pipe(Effect.scoped), 60_000)

  it.live("a failure of the early start is the database layer's to report, once, as the start's failure", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      yield* Effect.promise(async () => {
        await mkdir(Path.join(dir, "pg"))
        await writeFile(Path.join(dir, "pg", "PG_VERSION"), "17\n")
      })
      const { code, lines, output } = yield* runToExit({ DATA_DIR: dir, LOG_FORMAT: "json" })
      expect(code).toBe(1)
      expect(lines, output).toHaveLength(1)
      const record = JSON.parse(lines[0]!)
      expect(record.level).toBe("fatal")
      expect(record.message).toContain("holds a PostgreSQL 17 data directory")
    }).pipe(Effect.scoped), 60_000)

  it.live("taken over once, with the settings it was started with; other settings are said to be a mistake", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const options = { dataDir: dir, durable: false, maxConnections: 10 }
      const early = startPostmaster(options)
      const refused = yield* Effect.promise(() => claimPostmaster({ ...options, maxConnections: 20 }).ready.then(() => undefined, String))
      expect(refused).toMatch(/was started with other settings than the database layer asks for/)
      const taken = claimPostmaster(options)
      expect(taken).toBe(early)
      const { child } = yield* Effect.promise(() => taken.ready)
      // The next one starts anew: refused, since this process runs the cluster's server already.
      const second = yield* Effect.promise(() => claimPostmaster(options).ready.then(() => undefined, String))
      expect(second).toContain("one service per DATA_DIR")
      child.kill("SIGINT")
      expect(yield* gone(dir)).toBe(true)
      expect(Exit.isSuccess(yield* Effect.exit(Effect.scoped(startEmbedded(options))))).toBe(true)
    }).pipe(Effect.scoped), 60_000)

  it.live("a first start copies the install's cluster template with the schema, which takes only the new cluster's own password; a copy a crash left is removed", () =>
    Effect.gen(function*() {
      // `npm install` made them (scripts/cluster-template.ts); made here when this checkout was installed without scripts.
      yield* Effect.promise(() => promisify(execFile)(process.execPath, ["scripts/cluster-template.ts"]))
      const binaries = findBinaries()
      expect(existsSync(Path.join(templateDir(binaries), "PG_VERSION"))).toBe(true)
      expect(existsSync(Path.join(schemaTemplateDir(binaries)!, "PG_VERSION"))).toBe(true)
      const migrations = (yield* Effect.promise(() => readdir("migrations"))).filter((file) => file.endsWith(".ts")).length
      /** What the cluster's `postgres` database says with this password: the migrations it records, or why not. */
      const connects = (port: number, password: string) =>
        Effect.promise(async () => {
          const client = new pg.Client({ host: HOST, port, user: "postgres", password, database: "postgres" })
          try {
            await client.connect()
            return (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM effect_sql_migrations")).rows[0]?.n
          } catch (error) {
            return (error as Error).message
          } finally {
            await client.end().catch(() => {})
          }
        })
      for (const durable of [true, false]) {
        const dir = yield* dataDir
        // What a start killed half-way through a copy leaves: the next start copies afresh.
        yield* Effect.promise(() => mkdir(Path.join(dir, "pg.copy")).then(() => writeFile(Path.join(dir, "pg.copy", "PG_VERSION"), "18\n")))
        const { child, password, port } = yield* Effect.promise(() => startPostmaster({ dataDir: dir, durable, maxConnections: 5 }).ready)
        expect(existsSync(Path.join(dir, "pg.copy"))).toBe(false)
        expect(yield* Effect.promise(() => readFile(Path.join(dir, "pg.password"), "utf8"))).toBe(`${password}\n`)
        // Copied from the template with the schema: every migration is there already.
        expect(yield* connects(port, password)).toBe(migrations)
        expect(yield* connects(port, `${password}x`)).toMatch(/password authentication failed/)
        child.kill("SIGINT")
        expect(yield* gone(dir)).toBe(true)
      }
    }).pipe(Effect.scoped), 60_000)
})
