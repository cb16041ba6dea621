import { DateTime, Effect, Schema } from "effect"
import { InvalidRequest } from "../Domain/Errors.ts"

/** Creation times a row can have: from 1970 to the end of year 9999, which PostgreSQL's timestamptz holds too. */
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

const CursorTime = Schema.Number.pipe(Schema.int(), Schema.between(0, MAX_TIME))

const CursorJson = Schema.parseJson(Schema.Tuple(CursorTime, Schema.UUID))

const decodeJson = Schema.decodeUnknown(CursorJson)

const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/

/** What a keyset page is ordered by: newest first, ties broken by id. */
export interface KeysetRow {
  readonly createdAt: DateTime.Utc
  readonly id: string
}

/** Opaque keyset cursor: the last row's creation time and id. */
export const encodeCursor = (row: KeysetRow) =>
  Buffer.from(JSON.stringify([DateTime.toEpochMillis(row.createdAt), row.id])).toString("base64url")

/** Every part is checked (alphabet, JSON shape, a time PostgreSQL can compare, a UUID): a bad cursor is 400. */
export const decodeCursor = (cursor: string) =>
  Effect.suspend((): Effect.Effect<readonly [number, string], unknown> =>
    BASE64URL.test(cursor) ? decodeJson(Buffer.from(cursor, "base64url").toString()) : Effect.fail("not base64url")
  ).pipe(
    Effect.map(([ms, id]) => ({ createdAt: new Date(ms), id })),
    Effect.mapError(() => new InvalidRequest({ error: "invalid cursor" }))
  )

/** One page of newest-first rows (fetched with `limit + 1`), with the cursor of the next page when there is one. */
export const toPage = <R extends KeysetRow, A>(
  rows: ReadonlyArray<R>,
  limit: number,
  toItem: (row: R) => A
) => {
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    items: page.map(toItem),
    ...(rows.length > limit && last !== undefined ? { nextCursor: encodeCursor(last) } : {})
  }
}
