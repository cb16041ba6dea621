import { Schema } from "effect"

/** `limit` and `cursor` of every keyset-paged list route. */
export const PageParams = {
  limit: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100, { message: () => "limit must be 1 to 100" }))
  ),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
}

/** One page of a list, newest first; `nextCursor` is absent on the last page. */
export const Page = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), nextCursor: Schema.optional(Schema.String) })
