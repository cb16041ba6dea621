import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** One request the receiver got. */
export interface Received {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly path: string
  readonly at: number
}

/** What the receiver answers to the `n`th request (from 0): a status, or `hold` to leave it unanswered. */
export type Answer = (n: number, request: Received) => number | "hold"

export interface WebhookReceiver {
  /** The receiver's base URL, on the loopback host it listens on. */
  readonly url: string
  readonly received: Array<Received>
  /** Changes what it answers from now on. */
  answer: Answer
  /** Resolves once `n` requests arrived (or fails after `ms`). */
  readonly waitFor: (n: number, ms?: number) => Effect.Effect<ReadonlyArray<Received>>
}

const flatHeaders = (request: IncomingMessage) =>
  Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v ?? ""]))

/**
 * A webhook endpoint on a loopback address (`127.0.0.2`, `::1`, `127.0.0.1`...), recording every request; closed
 * with its scope. Requests it holds are never answered (their connections are destroyed when it closes).
 */
export const webhookReceiver = (host = "127.0.0.2", answer: Answer = () => 200) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<WebhookReceiver & { close: () => Promise<void> }>((resolve, reject) => {
        const received: Array<Received> = []
        let self: WebhookReceiver & { close: () => Promise<void> }
        const server = createServer((request: IncomingMessage, response: ServerResponse) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const entry = { headers: flatHeaders(request), body: Buffer.concat(chunks).toString(), path: request.url ?? "", at: Date.now() }
            const n = received.length
            received.push(entry)
            const status = self.answer(n, entry)
            if (status !== "hold") response.writeHead(status, { "content-type": "text/plain" }).end("ok")
          })
        })
        server.once("error", reject)
        server.listen(0, host, () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
          resolve(self = {
            url,
            received,
            answer,
            waitFor: (n, ms = 15_000) =>
              Effect.promise(async () => {
                const until = Date.now() + ms
                while (received.length < n) {
                  if (Date.now() > until) throw new Error(`the receiver got ${received.length} of ${n} requests within ${ms} ms`)
                  await new Promise((r) => setTimeout(r, 10))
                }
                return received.slice()
              }),
            close: () =>
              new Promise<void>((done) => {
                server.closeAllConnections()
                server.close(() => done())
              })
          })
        })
      })
    ),
    (receiver) => Effect.promise(() => receiver.close())
  )
