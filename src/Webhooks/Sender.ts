import { Data, Effect } from "effect"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP } from "node:net"
import type { Target } from "./Target.ts"

/** An attempt that got no HTTP answer: the connection failed, timed out or broke. */
export class SendFailed extends Data.TaggedError("SendFailed")<{ readonly reason: string }> {}

/** How much of an answer's body is read before the connection is dropped: only its status counts. */
const MAX_ANSWER = 64 * 1024

/**
 * POSTs `body` to the target, connecting to its checked address (never resolving the name again, so a DNS answer
 * cannot change between the check and the connection), with the URL's host in `Host` and, for https, as the TLS
 * server name. Redirects are not followed (a 3xx is an answer like any other), no connection is reused, and the
 * whole exchange ends within `timeoutMs`. Answers the HTTP status.
 */
export const send = (target: Target, headers: Readonly<Record<string, string>>, body: string, timeoutMs: number) =>
  Effect.async<number, SendFailed>((resume) => {
    const { url } = target
    const secure = url.protocol === "https:"
    const payload = Buffer.from(body)
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1")
    const options = {
      method: "POST",
      host: target.address,
      family: target.family,
      port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      agent: false as const,
      headers: {
        ...headers,
        host: url.host,
        "content-type": "application/json",
        "content-length": String(payload.length),
        "user-agent": "confidential-payroll-webhooks/1"
      },
      ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {})
    }
    let settled = false
    const finish = (outcome: Effect.Effect<number, SendFailed>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(outcome)
    }
    const req = (secure ? httpsRequest : httpRequest)(options, (res) => {
      const status = res.statusCode ?? 0
      let read = 0
      res.on("data", (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER) res.destroy()
      })
      res.on("end", () => finish(Effect.succeed(status)))
      res.on("close", () => finish(Effect.succeed(status)))
      res.on("error", () => finish(Effect.succeed(status)))
    })
    const timer = setTimeout(() => {
      finish(Effect.fail(new SendFailed({ reason: `no answer within ${timeoutMs} ms` })))
      req.destroy()
    }, timeoutMs)
    req.on("error", (error: NodeJS.ErrnoException) =>
      finish(Effect.fail(new SendFailed({ reason: error.code ?? error.message }))))
    req.end(payload)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      req.destroy()
    })
  })
