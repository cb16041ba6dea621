import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"

/**
 * The platform writes an answer with `response.end(body, callback)` and waits, uninterruptibly, for the callback.
 * Node never calls it when the connection closed first, so the request's fiber, and all it holds, would wait
 * forever: an abandoned request would never be freed. Once the connection closes unanswered, the response is
 * marked ended, and the platform then writes nothing and moves on.
 */
export const endWhenClientLeaves = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.sync(() => {
    const response = NodeHttpServerRequest.toServerResponse(request)
    response.once("close", () => {
      if (!response.writableEnded) response.end()
    })
  })
