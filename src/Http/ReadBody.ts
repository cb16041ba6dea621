import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"

export type BodyRead =
  | { readonly _tag: "Body"; readonly text: string }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Failed" }
  | { readonly _tag: "TimedOut" }

/** A client that has not sent its whole body by then is answered 408 and its connection closed. */
export const BODY_TIMEOUT_MS = 30_000

/**
 * Reads at most `maxBytes`; past that it stops keeping data and lets the rest drain, so that the 413 still reaches
 * the client (the platform's own limit destroys the socket instead). A client that goes away mid-body ends the read
 * at once (the request emits `error`), so nothing of it is kept.
 */
export const readBounded = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) =>
  Effect.async<BodyRead>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let size = 0
    const detach = () => {
      clearTimeout(timer)
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onFailed)
      incoming.off("close", onFailed)
    }
    const finish = (read: BodyRead) => {
      detach()
      chunks.length = 0
      resume(Effect.succeed(read))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      finish({ _tag: "TooLarge" })
      incoming.resume()
    }
    const onEnd = () => {
      const text = Buffer.concat(chunks).toString("utf8")
      finish({ _tag: "Body", text })
    }
    const onFailed = () => finish({ _tag: "Failed" })
    const timer = setTimeout(() => finish({ _tag: "TimedOut" }), BODY_TIMEOUT_MS)
    incoming.on("data", onData)
    incoming.on("end", onEnd)
    incoming.on("error", onFailed)
    incoming.on("close", onFailed)
    return Effect.sync(detach)
  })
