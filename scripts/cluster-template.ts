// Makes the cluster templates that a first start of the embedded PostgreSQL copies instead of running initdb and the
// migrations (src/EmbeddedPostgres/FirstStart.ts), in node_modules/.cache/confidential-payroll/:
//   pg-<binaries' version>                    initdb's cluster (a first start copies it in about 0.3 s instead of 1.4);
//   pg-<binaries' version>-schema-<digest>    the same with every migration of migrations/ applied, by the service's
//                                             own database layer (src/Sql/Migrations.ts), for code with exactly these
//                                             migrations.
// Run by `npm install` (prepare) and `npm run build`. It never fails an install: without a template (binaries that
// cannot run here, a checkout the `postgres` user cannot reach as root), first starts do that work themselves.
import { mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs"
import * as Path from "node:path"
import { findBinaries, makeTemplate, schemaTemplateDir } from "../src/EmbeddedPostgres/FirstStart.ts"

const since = (started: number) => `${Math.round(performance.now() - started)} ms`

/** The schema template: a first start of the service's database layer on a scratch DATA_DIR, then its cluster kept. */
const makeSchemaTemplate = async (dir: string) => {
  // Loaded here, so that a failure to load them is this template's, reported below, not the install's.
  const { ConfigProvider, Effect, Layer, Logger, LogLevel } = await import("effect")
  const { DatabaseLive } = await import("../src/Sql/Migrations.ts")
  const scratch = mkdtempSync(Path.join(Path.dirname(dir), ".schema-"))
  try {
    // Nothing from this process's environment (a DATABASE_URL, say) reaches the layer: only the scratch DATA_DIR.
    await Effect.runPromise(Layer.build(DatabaseLive).pipe(
      Effect.scoped,
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", scratch]]))),
      Logger.withMinimumLogLevel(LogLevel.Warning)
    ))
    renameSync(Path.join(scratch, "pg"), dir)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

const started = performance.now()
try {
  const { dir, made } = await makeTemplate()
  console.log(made ? `cluster-template: ${dir} in ${since(started)}` : `cluster-template: ${dir} is there already`)
  const schema = schemaTemplateDir(findBinaries())
  if (schema !== undefined && !readdirSync(Path.dirname(schema)).includes(Path.basename(schema))) {
    const migrating = performance.now()
    await makeSchemaTemplate(schema)
    console.log(`cluster-template: ${schema} in ${since(migrating)}`)
  }
} catch (error) {
  console.warn(`cluster-template: not made, first starts of the embedded PostgreSQL make their cluster themselves: ${error instanceof Error ? error.message : String(error)}`)
}
