import { expect, layer } from "@effect/vitest"
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { runPayroll } from "../client/src/PayrollClient.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

interface Forwarded {
  readonly key: string | undefined
  readonly status: number
  readonly replayed: boolean
  readonly jobId: string | undefined
}

const bodyOf = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks)))
  })

/**
 * A reverse proxy in front of the service that loses the answer to the first POST /batch: the service created the job,
 * the client gets a 503 (as a proxy or load balancer gives when an upstream connection breaks). Everything is forwarded
 * to the real service; what it answered to POST /batch is recorded.
 */
const lossyProxy = (upstream: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly url: string; readonly batches: Array<Forwarded>; readonly server: Server }>((resolve) => {
        const batches: Array<Forwarded> = []
        const server = createServer(async (req, res) => {
          const body = await bodyOf(req)
          const headers = Object.fromEntries(
            Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length" && k !== "connection")
          ) as Record<string, string>
          const answer = await fetch(`${upstream}${req.url}`, {
            method: req.method ?? "GET",
            headers,
            ...(body.length > 0 ? { body } : {})
          })
          const text = await answer.text()
          if (req.method === "POST" && req.url === "/batch") {
            batches.push({
              key: req.headers["idempotency-key"] as string | undefined,
              status: answer.status,
              replayed: answer.headers.get("idempotent-replayed") === "true",
              jobId: answer.ok ? (JSON.parse(text) as { jobId: string }).jobId : undefined
            })
            if (batches.length === 1) {
              res.writeHead(503, { "content-type": "application/json", "retry-after": "1" })
              res.end(JSON.stringify({ _tag: "ServiceUnavailable", error: "upstream connection lost" }))
              return
            }
          }
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
          res.end(text)
        })
        server.listen(0, "127.0.0.1", () =>
          resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, batches, server }))
      })
    ),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

layer(TestAppLive({ RECONCILE_INTERVAL: "200 millis" }, { ledgerIntervalMs: 50 }), { excludeTestServices: true })("a lost answer", (it) => {
  it.scoped("runPayroll retries a POST /batch whose answer was lost with the same Idempotency-Key: one job, paid once", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const proxy = yield* lossyProxy(app.url)
      const { wallet, token } = yield* walletEmployer(app)
      const sequence = app.rpc.account(wallet.publicKey())!.sequence
      const items = [0n, 1n].map((k) => ({ signedXDR: innerTransfer(app, wallet, { sequence: sequence + k, validFor: 120 }) }))
      const results = yield* runPayroll(proxy.url, token, items, { pollEvery: "100 millis" }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      const [first, retry] = proxy.batches
      expect(proxy.batches).toHaveLength(2)
      expect(first).toMatchObject({ status: 200, replayed: false })
      expect(retry).toMatchObject({ status: 200, replayed: true, key: first!.key, jobId: first!.jobId })
      expect(first!.key).toMatch(/^payroll-/)
      expect(results.map((r) => [r.jobId, r.status])).toEqual([[first!.jobId, "SUCCESS"], [first!.jobId, "SUCCESS"]])
      expect(app.rpc.transactions.filter((t) => t.source === wallet.publicKey() && t.status === "SUCCESS")).toHaveLength(2)
    }))
})
