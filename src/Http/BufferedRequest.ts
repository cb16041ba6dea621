import { type HttpServerRequest, Multipart } from "@effect/platform"
import { Effect, Option, Stream } from "effect"

export interface ReadBody {
  readonly text: string
  /** The parsed JSON, when the body was read as JSON. */
  readonly json: Option.Option<unknown>
}

const alreadyRead = new Multipart.MultipartError({ reason: "InternalError", cause: "the request body was already read" })

/**
 * The request as handlers see it, its body already read by the server middleware. Platform defects: the Node request
 * reads its stream again for `arrayBuffer`, `stream` and `multipart` (only `text` is cached: Effect-TS/effect-smol#2096,
 * fixed in effect 4 only), and HttpApiBuilder reads a body of a JSON type it does not know (`application/vnd.api+json`)
 * with `arrayBuffer` (Effect-TS/effect#5908), so a handler would wait forever on a consumed stream. Here every
 * accessor answers from the bytes read, including on a request derived with `modify`. test/unit/platform-defects.test.ts
 * fails once the platform no longer needs this.
 */
export const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  body: ReadBody
): HttpServerRequest.HttpServerRequest => {
  const bytes = () => new TextEncoder().encode(body.text)
  return Object.create(request, {
    text: { value: Effect.succeed(body.text) },
    ...(Option.isSome(body.json) ? { json: { value: Effect.succeed(body.json.value) } } : {}),
    arrayBuffer: { get: () => Effect.sync(() => bytes().buffer) },
    stream: { get: () => Stream.suspend(() => Stream.make(bytes())) },
    multipart: { value: Effect.fail(alreadyRead) },
    multipartStream: { value: Stream.fail(alreadyRead) },
    modify: { value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => withBody(request.modify(options), body) }
  })
}
