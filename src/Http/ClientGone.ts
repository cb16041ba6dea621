import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"

/**
 * Platform defect: an answer is written with `response.end(body, callback)` and waited for, uninterruptibly, and Node
 * drops that callback once the connection has closed, so the fiber of a request whose client left never ends
 * (Effect-TS/effect#6485; fixed for HEAD only, in effect 4, by #6506). Once the connection closes unanswered, the
 * response is marked ended here: the platform then writes nothing and moves on. test/unit/platform-defects.test.ts
 * fails once the platform no longer needs this.
 */
export const endWhenClientLeaves = (request: HttpServerRequest.HttpServerRequest): void => {
  const response = NodeHttpServerRequest.toServerResponse(request)
  response.once("close", () => {
    if (!response.writableEnded) response.end()
  })
}
