import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { orUnavailable } from "./Errors.ts"

export interface KeysetQuery {
  readonly limit: number
  /** The last row of the previous page (from its cursor). */
  readonly after: Option.Option<{ readonly createdAt: Date; readonly id: string }>
}

/**
 * Newest-first pages of `table`, made once per repository: each call reads one page under its `filters`, after the
 * cursor: `limit + 1` rows, so that `toPage` can tell whether another page follows. Rows are decoded with `Row`, or,
 * for a list read on every request, mapped by `fromRow`, a hand-written decoder the caller holds to its schema in a
 * test. The filters are fragments of the caller's, so the statement is put together per call; the decoder is built
 * here, once.
 */
export const keysetPages = <A, I>(
  sql: SqlClient.SqlClient,
  options: {
    readonly table: string
    readonly columns: string
  } & ({ readonly Row: Schema.Schema<A, I> } | { readonly fromRow: (row: I) => A })
) => {
  const table = sql(options.table)
  const columns = sql.literal(options.columns)
  const decode: (rows: ReadonlyArray<object>) => Effect.Effect<ReadonlyArray<A>, ParseError> = "Row" in options
    ? Schema.decodeUnknown(Schema.Array(options.Row))
    : (rows) => Effect.sync(() => (rows as ReadonlyArray<I>).map(options.fromRow))
  return (filters: ReadonlyArray<Fragment>, query: KeysetQuery) =>
    sql`
        SELECT ${columns} FROM ${table}
        WHERE ${
      sql.and([
        ...filters,
        ...Option.toArray(Option.map(query.after, (a) => sql`(created_at, id) < (${a.createdAt}, ${a.id})`))
      ])
    }
        ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`.pipe(Effect.flatMap(decode), orUnavailable)
}
