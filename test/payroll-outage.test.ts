import { describe, expect, it } from "@effect/vitest"
import { FetchHttpClient } from "@effect/platform"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import { makeClient } from "../client/src/Client.ts"
import { type PayrollProgress, runPayroll } from "../client/src/PayrollClient.ts"
import { privateCluster } from "./support/PrivateCluster.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

// Issue 15 §1: the typed client decodes a database outage as the declared ServiceUnavailable, and runPayroll rides it
// out (Retry-After) instead of aborting the payroll, saying so through its progress callback. The outage is real:
// the service's own PostgreSQL cluster stopped and started again.
describe("a payroll through a database outage (a private PostgreSQL cluster)", () => {
  it.live("runPayroll waits out 503s after their Retry-After, reports them, and every transfer lands", () =>
    Effect.gen(function*() {
      const cluster = yield* privateCluster
      const context = yield* Layer.build(TestAppLive({
        DATABASE_URL: cluster.url,
        RECONCILE_INTERVAL: "200 millis",
        WORKER_MAX_BACKOFF: "200 millis",
        TRANSFER_POLL_MARGIN: "1 second"
      }, { ledgerIntervalMs: 50 }))
      const app = Context.get(context, TestApp)
      const { wallet, token } = yield* walletEmployer(app)
      const sequence = app.rpc.account(wallet.publicKey())!.sequence
      const items = [0n, 1n, 2n].map((k) => ({ signedXDR: innerTransfer(app, wallet, { sequence: sequence + k, validFor: 120 }) }))

      yield* cluster.stop
      const typed = yield* makeClient(app.url, token).pipe(
        Effect.flatMap((client) => client.account.me({ urlParams: {} })),
        Effect.flip,
        Effect.provide(FetchHttpClient.layer)
      )
      const progress: Array<PayrollProgress> = []
      const payroll = yield* Effect.fork(
        runPayroll(app.url, token, items, { onProgress: (p) => progress.push(p), pollEvery: "100 millis" }).pipe(
          Effect.provide(FetchHttpClient.layer)
        )
      )
      yield* Effect.sleep("2500 millis")
      yield* cluster.start
      const results = yield* Fiber.join(payroll)

      expect(typed._tag).toBe("ServiceUnavailable")
      const retries = progress.flatMap((p) => (p.retrying === undefined ? [] : [p.retrying]))
      expect(retries.length).toBeGreaterThan(0)
      expect(retries.every((r) => r.status === 503)).toBe(true)
      // The service asks for 5 s (Retry-After); the client honours it rather than hammering.
      expect(retries.map((r) => Duration.toMillis(r.wait))).toEqual(retries.map(() => 5_000))
      expect(results.map((r) => r.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"])
      expect(app.rpc.transactions.filter((t) => t.source === wallet.publicKey() && t.status === "SUCCESS")).toHaveLength(3)
    }).pipe(Effect.scoped), 120_000)
})
