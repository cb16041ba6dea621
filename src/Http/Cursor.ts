import { Effect, Schema } from "effect"
import { InvalidRequest } from "../Domain/Errors.ts"

const CursorJson = Schema.parseJson(Schema.Tuple(Schema.Number, Schema.UUID))

/** Opaque keyset cursor: the last row's creation time and id. */
export const encodeCursor = (row: { readonly createdAt: Date; readonly id: string }) =>
  Buffer.from(JSON.stringify([row.createdAt.getTime(), row.id])).toString("base64url")

export const decodeCursor = (cursor: string) =>
  Schema.decodeUnknown(CursorJson)(Buffer.from(cursor, "base64url").toString()).pipe(
    Effect.map(([ms, id]) => ({ createdAt: new Date(ms), id })),
    Effect.mapError(() => new InvalidRequest({ error: "invalid cursor" }))
  )

/** One page of newest-first rows (fetched with `limit + 1`), with the cursor of the next page when there is one. */
export const toPage = <R extends { readonly createdAt: Date; readonly id: string }, A>(
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
