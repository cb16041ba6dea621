import { type SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"

const Count = Schema.Struct({ n: Schema.Int })

/**
 * Deletes up to `limit` rows of `table` matching `where`, picked by `key` with SKIP LOCKED (so that instances pruning
 * side by side never wait on each other), and counts them.
 */
export const deleteSome = (
  sql: SqlClient.SqlClient,
  options: { readonly table: string; readonly key: string; readonly where: Fragment; readonly limit: number }
) => {
  const table = sql(options.table)
  const key = sql(options.key)
  return SqlSchema.single({
    Request: Schema.Void,
    Result: Count,
    execute: () =>
      sql`
        WITH gone AS (
          DELETE FROM ${table} WHERE ${key} IN (
            SELECT ${key} FROM ${table} WHERE ${options.where} LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`
  })(undefined).pipe(
    Effect.map((row) => row.n),
    Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die })
  )
}
