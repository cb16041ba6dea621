import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted, String } from "effect"
import { DatabaseConfig } from "../Config.ts"
import { startEmbedded } from "./Embedded.ts"

const naming = {
  transformQueryNames: String.camelToSnake,
  transformResultNames: String.snakeToCamel,
  applicationName: "confidential-payroll"
} as const

/**
 * The one PostgreSQL client: `DATABASE_URL` when set, otherwise an embedded PGlite in `DATA_DIR`
 * reached over one loopback connection (PGlite serves a single session).
 */
export const PgLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const { url, dataDir } = yield* DatabaseConfig
    if (Option.isSome(url)) {
      return PgClient.layer({ url: url.value, ...naming })
    }
    const { host, port } = yield* startEmbedded(dataDir)
    yield* Effect.logInfo("embedded PostgreSQL started").pipe(Effect.annotateLogs({ dataDir }))
    return PgClient.layer({
      host,
      port,
      username: "postgres",
      database: "postgres",
      password: Redacted.make("postgres"),
      maxConnections: 1,
      minConnections: 1,
      ...naming
    })
  })
)
