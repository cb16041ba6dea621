import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import type { Answer } from "./ConformanceDocument.ts"

/**
 * One request exactly as written: any media type and headers, a body (sent with its Content-Length), or a chunked
 * body of `chunkedBytes` with no length.
 */
export interface RawRequest {
  readonly method: string
  /** Path and query, already encoded. */
  readonly target: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  readonly chunkedBytes?: number
}

/**
 * Sends `request` over its own connection and reads the whole answer. A server may answer before it has read the
 * body (413) and close: the answer counts, a write error after it does not. No answer within 15 s is a `NoAnswer`.
 */
export const sendRaw = (baseUrl: string, request: RawRequest) =>
  Effect.async<Answer>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    let settled = false
    const finish = (answer: Answer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.succeed(answer))
    }
    const headers: Record<string, string> = { connection: "close", ...request.headers }
    const body = request.chunkedBytes === undefined ? request.body : undefined
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body))
    if (request.chunkedBytes !== undefined) headers["transfer-encoding"] = "chunked"
    const req = httpRequest({ host: hostname, port, method: request.method, path: request.target, headers, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("error", (error) => finish({ _tag: "NoAnswer", error: `answer broken off: ${error.message}` }))
      res.on("end", () =>
        finish({
          _tag: "Answered",
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          text: Buffer.concat(chunks).toString("utf8")
        })
      )
    })
    const timer = setTimeout(() => {
      finish({ _tag: "NoAnswer", error: "no answer within 15 s" })
      req.destroy()
    }, 15_000)
    req.on("error", (error) => {
      // A write error once the server has answered early and closed is expected; the answer is still read.
      setTimeout(() => finish({ _tag: "NoAnswer", error: error.message }), 1_000)
    })
    if (request.chunkedBytes !== undefined) {
      const chunk = Buffer.alloc(16 * 1024, " ")
      const write = (sent: number): void => {
        if (settled || req.destroyed) return
        if (sent >= request.chunkedBytes!) return void req.end()
        if (req.write(chunk)) return write(sent + chunk.length)
        req.once("drain", () => write(sent + chunk.length))
      }
      write(0)
    } else {
      req.end(body)
    }
    return Effect.sync(() => req.destroy())
  })
