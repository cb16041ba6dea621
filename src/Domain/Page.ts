import { Schema } from "effect"

/** `limit` and `cursor` of every keyset-paged list route. */
export const PageParams = {
  limit: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100, { message: () => "limit must be 1 to 100" }))
      // A query parameter travels as text; what it holds is an integer, and a generated client should send one.
      .annotations({ jsonSchema: { type: "integer", minimum: 1, maximum: 100 } })
  ).annotations({ description: "How many items to return, 1 to 100 (default 50)" }),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(200))).annotations({
    description: "The `nextCursor` of the previous page, to read the page after it; leave it out for the first page"
  })
}

/** One page of a list, newest first; `nextCursor` is absent on the last page. */
export const Page = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({
    items: Schema.propertySignature(Schema.Array(item)).annotations({ description: "The items of this page, newest first" }),
    nextCursor: Schema.optional(Schema.String).annotations({
      description: "Pass it as `cursor` to read the next page; absent on the last page"
    })
  })
