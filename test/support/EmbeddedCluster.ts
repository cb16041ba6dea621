import { Effect, Exit, Redacted, Scope } from "effect"
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"
import { startEmbedded } from "../../src/EmbeddedPostgres/Embedded.ts"
import { alive } from "../../src/EmbeddedPostgres/Process.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** The test run's one embedded cluster (absent when TEST_DATABASE_URL points the suites at a server). */
    readonly embeddedDatabaseUrl: string | undefined
  }
}

const PREFIX = "payroll-test-cluster-"

export { alive }

/** A run that is still initialising its cluster has not written pg.starter yet. */
const recent = (dir: string) => stat(dir).then((s) => Date.now() - s.mtimeMs < 10 * 60_000, () => false)

/** Clusters of earlier runs that were killed before their teardown: stopped (immediately) and removed. */
const removeAbandoned = async () => {
  for (const entry of await readdir(tmpdir())) {
    if (!entry.startsWith(PREFIX)) continue
    const dir = Path.join(tmpdir(), entry)
    const starter = Number(await readFile(Path.join(dir, "pg.starter"), "utf8").catch(() => "NaN"))
    if (Number.isInteger(starter) ? alive(starter) : await recent(dir)) continue
    await stopLeftoverCluster(dir)
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The postmaster of `dataDir/pg` still running after whoever started it was killed: stopped at once (immediate
 * shutdown), and waited for for up to 5 s. A pid in the lock file that now names another program is left alone.
 */
export const stopLeftoverCluster = async (dataDir: string): Promise<void> => {
  const postmaster = Number((await readFile(Path.join(dataDir, "pg", "postmaster.pid"), "utf8").catch(() => "NaN")).split("\n")[0])
  if (!Number.isInteger(postmaster) || !alive(postmaster)) return
  const cmdline = await readFile(`/proc/${postmaster}/cmdline`, "utf8").catch(() => "")
  if (!cmdline.includes(dataDir)) return
  process.kill(postmaster, "SIGQUIT")
  for (let i = 0; i < 100 && alive(postmaster); i++) await new Promise((r) => setTimeout(r, 50))
}

/**
 * vitest globalSetup: one embedded PostgreSQL cluster for the whole run (each suite makes its own database in it),
 * so a suite does not pay for initdb and a server start. Durability is off: the cluster is thrown away.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL !== undefined) {
    project.provide("embeddedDatabaseUrl", undefined)
    return undefined
  }
  await removeAbandoned()
  const dataDir = await mkdtemp(Path.join(tmpdir(), PREFIX))
  const scope = Effect.runSync(Scope.make())
  const cluster = await Effect.runPromise(
    startEmbedded({ dataDir, durable: false, maxConnections: 400 }).pipe(Scope.extend(scope))
  ).catch(async (e: unknown) => {
    await rm(dataDir, { recursive: true, force: true })
    throw e
  })
  const url = new URL(`postgres://${cluster.host}:${cluster.port}/${cluster.database}`)
  url.username = cluster.username
  url.password = Redacted.value(cluster.password)
  project.provide("embeddedDatabaseUrl", url.toString())
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dataDir, { recursive: true, force: true })
  }
}
