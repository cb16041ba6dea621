import { type HttpServerRequest, Multipart } from "@effect/platform"
import { Effect, Option, Stream } from "effect"

export interface ReadBody {
  readonly text: string
  /** The parsed JSON, when the body was read as JSON. */
  readonly json: Option.Option<unknown>
}

const alreadyRead = new Multipart.MultipartError({ reason: "InternalError", cause: "the request body was already read" })

/**
 * The request as handlers see it, its body already read by the server middleware. The platform's request reads its
 * Node stream on each accessor: `text` and `json` once (cached), but `arrayBuffer`, `stream` and `multipart` from the
 * stream again. HttpApiBuilder picks the accessor by media type (`arrayBuffer` for any type it does not know, such
 * as `application/vnd.api+json`), so one that reads an already consumed stream waits forever. Here every accessor
 * answers from the bytes read, including on a request derived with `modify`.
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
