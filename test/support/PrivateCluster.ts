import { Effect } from "effect"
import { execFile, execFileSync } from "node:child_process"
import { chown, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { promisify } from "node:util"
import { freePort } from "./TestApp.ts"

const run = promisify(execFile)

/** The PostgreSQL server binaries (`pg_config --bindir`), when this machine has them. */
export const postgresBinaries: string | undefined = (() => {
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim()
    execFileSync(Path.join(dir, "pg_ctl"), ["--version"], { stdio: "ignore" })
    return dir
  } catch {
    return undefined
  }
})()

/** PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` user. */
const asServerUser = (command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]]

export interface PrivateCluster {
  readonly url: string
  /** `pg_ctl stop -m fast`: sessions are terminated, new connections refused. */
  readonly stop: Effect.Effect<void>
  readonly start: Effect.Effect<void>
}

/**
 * A throw-away PostgreSQL cluster of this test's own (initdb in a temporary directory, a free loopback port), so an
 * outage drill can stop and restart it without touching the shared server. Removed when the scope closes.
 */
export const privateCluster = Effect.acquireRelease(
  Effect.promise(async () => {
    const bin = postgresBinaries
    if (bin === undefined) throw new Error("no PostgreSQL server binaries (pg_config --bindir)")
    const dir = await mkdtemp(Path.join(tmpdir(), "payroll-cluster-"))
    if (process.getuid?.() === 0) {
      const ids = execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()
      const gid = execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()
      await chown(dir, Number(ids), Number(gid))
    }
    const data = Path.join(dir, "data")
    await run(...asServerUser(Path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync"]))
    const port = await freePort()
    const pgCtl = (...args: Array<string>) => run(...asServerUser(Path.join(bin, "pg_ctl"), ["-D", data, ...args]))
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`
    const start = () => pgCtl("-o", options, "-l", Path.join(dir, "log"), "-w", "start").then(() => undefined)
    const stop = () => pgCtl("-m", "fast", "-w", "stop").then(() => undefined)
    await start()
    return { dir, start, stop, url: `postgres://postgres@127.0.0.1:${port}/postgres` }
  }),
  (cluster) => Effect.promise(() => cluster.stop().catch(() => undefined).then(() => rm(cluster.dir, { recursive: true, force: true })))
).pipe(
  Effect.map((cluster): PrivateCluster => ({
    url: cluster.url,
    stop: Effect.promise(cluster.stop),
    start: Effect.promise(cluster.start)
  }))
)
