import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { inject } from "vitest"
import { DatabaseLive } from "../../src/Sql/Migrations.ts"

/** The PostgreSQL server the suites also run against, when CI points them at one. */
export const serverUrl = process.env.TEST_DATABASE_URL

export const backend = serverUrl === undefined ? "embedded" : "postgres"

/**
 * A fresh, empty database for one suite, on the server when TEST_DATABASE_URL is set, else in the test run's one
 * embedded cluster (test/support/EmbeddedCluster.ts), and a fresh DATA_DIR for what the service keeps there. Both are
 * removed when the scope closes.
 */
export const freshDatabase = Effect.gen(function*() {
  const dataDir = yield* Effect.acquireRelease(
    Effect.promise(() => mkdtemp(Path.join(tmpdir(), "payroll-test-"))),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )
  const adminUrl = serverUrl ?? inject("embeddedDatabaseUrl")
  if (adminUrl === undefined) return yield* Effect.dieMessage("no embedded test cluster: is test/support/EmbeddedCluster.ts vitest's globalSetup?")
  const name = `payroll_test_${randomBytes(6).toString("hex")}`
  const admin = yield* PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 })
  yield* admin.unsafe(`CREATE DATABASE ${name}`)
  yield* Effect.addFinalizer(() => admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore))
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return { DATA_DIR: dataDir, DATABASE_URL: url.toString() }
})

/** A fresh database (`freshDatabase`), migrated and pooled as the service does it (`DatabaseLive`). */
export const MigratedDatabase = Layer.unwrapScoped(
  Effect.map(freshDatabase, (settings) =>
    DatabaseLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))))))
).pipe(Layer.provide(Reactivity.layer))
