import { HttpServerResponse } from "@effect/platform"

/**
 * A 200 JSON answer from a hand-written encoder, for the lists read on every request: the endpoint's success schema
 * would encode the same value the same way, at several microseconds an item. Each encoder is held to its schema by a
 * test, and the conformance suite validates the answers against the OpenAPI document.
 */
export const jsonAnswer = <A>(toJson: (value: A) => unknown) => (value: A): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(toJson(value))

/** A page's encoder (`Domain/Page.ts`: its items, and `nextCursor` when another page follows) from its item's. */
export const pageToJson = <A, J>(item: (value: A) => J) =>
(page: { readonly items: ReadonlyArray<A>; readonly nextCursor?: string | undefined }) => ({
  items: page.items.map(item),
  ...(page.nextCursor === undefined ? undefined : { nextCursor: page.nextCursor })
})
