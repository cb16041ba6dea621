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
