import type { SqlClient } from "@effect/sql"
import { SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Option, Schema } from "effect"
import { orUnavailable } from "./Errors.ts"

export interface KeysetQuery {
  readonly limit: number
  /** The last row of the previous page (from its cursor). */
  readonly after: Option.Option<{ readonly createdAt: Date; readonly id: string }>
}

/**
 * One newest-first page of `table` under `filters`, after the cursor: `limit + 1` rows, so that `toPage` can tell
 * whether another page follows. Rows are decoded with `Row`.
 */
export const keysetPage = <A, I>(
  sql: SqlClient.SqlClient,
  options: {
    readonly table: string
    readonly columns: string
    readonly Row: Schema.Schema<A, I>
    readonly filters: ReadonlyArray<Fragment>
  }
) =>
(query: KeysetQuery) =>
  SqlSchema.findAll({
    Request: Schema.Void,
    Result: options.Row,
    execute: () =>
      sql`
        SELECT ${sql.literal(options.columns)} FROM ${sql(options.table)}
        WHERE ${
        sql.and([
          ...options.filters,
          ...Option.toArray(Option.map(query.after, (a) => sql`(created_at, id) < (${a.createdAt}, ${a.id})`))
        ])
      }
        ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`
  })(undefined).pipe(orUnavailable)
