import { Effect, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"

/**
 * `SqlSchema.findAll` for the pages a public route reads on every request, from rows the service wrote itself: the
 * request is encoded as there (the statement's parameters are checked), but each row is taken as it comes, not
 * decoded. Only for a `Result` whose type and encoding are the same (plain columns, `Date`s): decoding it would
 * check the database's own answer against the shapes ingestion validated before writing them.
 */
export const findAllTrusted = <IA, II, A, E, R>(options: {
  readonly Request: Schema.Schema<IA, II>
  readonly Result: Schema.Schema<A, A>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<object>, E, R>
}) => {
  const encodeRequest = Schema.encode(options.Request)
  return (request: IA): Effect.Effect<ReadonlyArray<A>, E | ParseError, R> =>
    Effect.flatMap(encodeRequest(request), (encoded) => options.execute(encoded) as Effect.Effect<ReadonlyArray<A>, E, R>)
}
