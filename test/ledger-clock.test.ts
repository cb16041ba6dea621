import { expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"

const LEDGER_MS = 1_000
const EMPLOYERS = 6

// Timings are not asserted: what the ledger clock changes here is how many times each transfer asks for its outcome.
layer(TestAppLive({}, { ledgerIntervalMs: LEDGER_MS }), { timeout: 60_000 })("polls timed to the ledger closes", (it) => {
  it.effect("transfers on 1 s ledgers ask getTransaction about once each, sent at any point of the ledger", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const employers = yield* Effect.forEach(Array.from({ length: EMPLOYERS }), (_, i) => walletEmployer(app, `Ledger Co ${i}`))
      const round = (spread: number) =>
        Effect.forEach(
          employers,
          ({ wallet, token }, i) =>
            Effect.suspend(() => postTransfer(app, token, innerTransfer(app, wallet))).pipe(
              Effect.delay(Duration.millis((i * spread) / EMPLOYERS))
            ),
          { concurrency: "unbounded" }
        )
      // The first rounds teach the instance the cadence.
      for (const reply of [...yield* round(LEDGER_MS), ...yield* round(LEDGER_MS)]) {
        expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      }
      app.rpc.resetCalls()
      const replies = [...yield* round(LEDGER_MS), ...yield* round(LEDGER_MS), ...yield* round(LEDGER_MS / 2)]
      for (const reply of replies) {
        expect(reply.status, JSON.stringify(reply.body)).toBe(200)
        expect((reply.body as { readonly status: string }).status).toBe("SUCCESS")
      }
      const count = (method: string) => app.rpc.calls.filter((c) => c.method === method).length
      expect(count("sendTransaction")).toBe(replies.length)
      // One look per transfer after its ledger closes, and the looks an overdue ledger costs the whole instance; a blind
      // schedule (250 ms doubling to 1 s) asked about 3 times per transfer here.
      expect(count("getTransaction")).toBeLessThanOrEqual(2 * replies.length)
    }))
})
