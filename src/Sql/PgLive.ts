import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted, String } from "effect"
import { DatabaseConfig, OperationsConfig } from "../Config.ts"
import { startEmbedded } from "./Embedded.ts"

const naming = {
  transformQueryNames: String.camelToSnake,
  transformResultNames: String.snakeToCamel,
  applicationName: "confidential-payroll"
} as const

/**
 * The one PostgreSQL client: `DATABASE_URL` when set, otherwise an embedded PGlite in `DATA_DIR`
 * reached over one loopback connection (PGlite serves a single session).
 *
 * The pool rides out an outage by itself: a connection that breaks fails its query (a connection-class SqlError,
 * answered 503) and is dropped, idle ones that break are dropped too, and the next query opens a new connection
 * once the server answers again. DATABASE_CONNECT_TIMEOUT bounds a connect to a server that does not answer (and
 * the wait for a free connection), so requests fail instead of hanging.
 */
export const PgLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const { url, dataDir } = yield* DatabaseConfig
    const { databaseConnectTimeout } = yield* OperationsConfig
    if (Option.isSome(url)) {
      return PgClient.layer({ url: url.value, connectTimeout: databaseConnectTimeout, ...naming })
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
