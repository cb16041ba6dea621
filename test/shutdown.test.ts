import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Keypair, Networks, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect, Schedule } from "effect"
import { call, signIn } from "./support/Client.ts"
import { KeptAlive } from "./support/RawHttp.ts"
import { spawnService } from "./support/Spawned.ts"
import { loopbackRpc } from "./support/TestApp.ts"
import { backend, freshDatabase } from "./support/TestDatabase.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"
import { waitUntil } from "./support/WaitFor.ts"

const IN_FLIGHT = 10
const LEDGER_MS = 2_000
const SHUTDOWN_TIMEOUT_S = 30

describe(`graceful shutdown (${backend})`, () => {
  it.live("SIGTERM: every request in flight is answered, a kept-alive connection is answered with Connection: close, exit 0", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(LEDGER_MS)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const service = yield* spawnService(rpc, {
        ...database,
        SHUTDOWN_TIMEOUT: `${SHUTDOWN_TIMEOUT_S} seconds`,
        STELLAR_RPC_TIMEOUT: "4 seconds"
      })
      const { app } = service
      const employers: Array<{ readonly wallet: Keypair; readonly token: string }> = []
      for (let i = 0; i < IN_FLIGHT; i++) employers.push(yield* walletEmployer(app, `Drain Co ${i}`))
      const port = Number(new URL(app.url).port)
      const keptAlive = yield* Effect.promise(() => KeptAlive.open("127.0.0.1", port))
      const probe = yield* Effect.promise(() => KeptAlive.open("127.0.0.1", port))
      expect((yield* Effect.promise(() => keptAlive.send("GET", "/health/live")))?.status).toBe(200)
      expect((yield* Effect.promise(() => probe.send("GET", "/health/ready")))?.status).toBe(200)

      // A contractor whose registration check waits on a hanging RPC (answered "invited" after STELLAR_RPC_TIMEOUT).
      rpc.resetCalls()
      rpc.setFault({ kind: "hang" }, { methods: ["simulateTransaction"], times: 1 })
      const contractor = call(app, "POST", "/contractors", {
        token: employers[0]!.token,
        json: { name: "Waiting On Chain", address: Keypair.random().publicKey() }
      }).pipe(Effect.runPromise)
      const transfers = employers.map(({ token, wallet }) =>
        call(app, "POST", "/transfer", { token, json: { signedXDR: innerTransfer(app, wallet, { validFor: 120 }) } }).pipe(
          Effect.runPromise
        )
      )
      yield* Effect.promise(() =>
        waitUntil("every transfer sent and the contractor check waiting", () =>
          rpc.calls.filter((c) => c.method === "sendTransaction").length >= IN_FLIGHT &&
          rpc.calls.some((c) => c.method === "simulateTransaction"))
      )

      const signalled = Date.now()
      service.child.kill("SIGTERM")
      yield* Effect.sleep("300 millis")
      const late = yield* Effect.promise(() => keptAlive.send("GET", "/me", { authorization: `Bearer ${employers[1]!.token}` }))
      const lateAt = Date.now()
      const readiness = yield* Effect.promise(() => probe.send("GET", "/health/ready"))
      // The listener closes as the drain starts; on a loaded machine the signal may take a moment to be handled.
      const newConnection = yield* Effect.promise(async () => {
        const until = Date.now() + 5_000
        for (;;) {
          const outcome = await fetch(`${app.url}/health/live`).then((r) => `answered ${r.status}`, () => "refused")
          if (outcome === "refused" || Date.now() > until) return outcome
          await new Promise((r) => setTimeout(r, 50))
        }
      })

      const answers = yield* Effect.promise(() => Promise.all(transfers.map((p) => p.then((r) => ({ ...r, at: Date.now() })))))
      const created = yield* Effect.promise(() => contractor)
      const exit = yield* Effect.promise(() => service.exited)
      const seconds = (at: number) => ((at - signalled) / 1000).toFixed(2)
      console.log(
        `[drain figures, ${backend}] ${answers.filter((a) => a.status === 200).length}/${IN_FLIGHT} in-flight transfers ` +
          `answered 200 (last at +${seconds(Math.max(...answers.map((a) => a.at)))} s); kept-alive request ` +
          `${late?.status ?? "unanswered"} at +${seconds(lateAt)} s (connection: ${late?.headers.connection}); ` +
          `new connection after SIGTERM: ${newConnection}; POST /contractors ${created.status} ` +
          `(${created.body.status}); exit code ${exit.code} at +${seconds(exit.at)} s`
      )
      expect(answers.map((a) => a.status)).toEqual(Array(IN_FLIGHT).fill(200))
      expect(answers.every((a) => a.body.status === "SUCCESS")).toBe(true)
      expect(late?.status).toBe(200)
      expect(late?.headers.connection).toBe("close")
      expect(readiness?.status).toBe(503)
      expect(JSON.parse(readiness?.body ?? "{}")).toMatchObject({ status: "draining" })
      expect(readiness?.headers.connection).toBe("close")
      expect(newConnection).toBe("refused")
      expect(created.status).toBe(200)
      expect(created.body.status).toBe("invited")
      expect(exit.code).toBe(0)
      expect(exit.at - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_S * 1000)
      keptAlive.close()
      probe.close()
    }).pipe(Effect.scoped), 180_000)

  it.live("past SHUTDOWN_TIMEOUT the rest is answered 503, exit 0, and the next instance's reconciler takes it over at once", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(0)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const first = yield* spawnService(rpc, { ...database, SHUTDOWN_TIMEOUT: "1 second", RECONCILE_INTERVAL: "20 seconds" })
      const employers: Array<{ readonly wallet: Keypair; readonly token: string }> = []
      for (let i = 0; i < 5; i++) employers.push(yield* walletEmployer(first.app, `Cut Off Co ${i}`))
      rpc.resetCalls()
      const signed = employers.map(({ wallet }) => innerTransfer(first.app, wallet, { validFor: 300 }))
      const requests = employers.map(({ token }, i) =>
        fetch(`${first.app.url}/transfer`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ signedXDR: signed[i] })
        }).then((r) => `answered ${r.status}`, () => "unanswered")
      )
      yield* Effect.promise(() => waitUntil("every transfer sent", () => rpc.calls.filter((c) => c.method === "sendTransaction").length >= 5))
      const signalled = Date.now()
      first.child.kill("SIGTERM")
      const outcomes = yield* Effect.promise(() => Promise.all(requests))
      const exit = yield* Effect.promise(() => first.exited)
      console.log(`[drain figures, ${backend}] SHUTDOWN_TIMEOUT 1 s with the ledger stopped: ${outcomes.join(", ")}; ` +
        `exit code ${exit.code} at +${((exit.at - signalled) / 1000).toFixed(2)} s`)
      expect(outcomes).toEqual(Array(5).fill("answered 503"))
      expect(exit.code).toBe(0)

      rpc.advanceLedger()
      // A reconciler that only runs at start-up and then once a minute: it settles them only if their leases were released.
      const second = yield* spawnService(rpc, { ...database, RECONCILE_INTERVAL: "1 minute" })
      for (const [i, { wallet }] of employers.entries()) {
        const token = yield* signIn(second.app, wallet)
        const hash = Buffer.from(TransactionBuilder.fromXDR(signed[i]!, Networks.TESTNET).hash()).toString("hex")
        const status = yield* call(second.app, "GET", `/transfers/${hash}`, { token }).pipe(
          Effect.map((r) => r.body.status as string),
          Effect.filterOrFail((s) => s === "SUCCESS", (s) => s),
          Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("20 seconds"))),
          Effect.merge
        )
        expect(status).toBe("SUCCESS")
      }
    }).pipe(Effect.scoped), 180_000)

  it.live("a batch run in flight: the item sent reaches its outcome, no new item starts, the next instance finishes the job", () =>
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc(LEDGER_MS)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const first = yield* spawnService(rpc, { ...database, RECONCILE_INTERVAL: "20 seconds" })
      const { wallet, token } = yield* walletEmployer(first.app, "Batch Drain Co")
      const base = rpc.account(wallet.publicKey())!.sequence
      const signed = [0n, 1n, 2n].map((k) => innerTransfer(first.app, wallet, { sequence: base + k, validFor: 300 }))
      rpc.resetCalls()
      const run = yield* call(first.app, "POST", "/batch", { token, json: { transactions: signed.map((signedXDR) => ({ signedXDR })) } })
      expect(run.status).toBe(200)
      yield* Effect.promise(() => waitUntil("the first item sent", () => rpc.calls.some((c) => c.method === "sendTransaction")))
      const signalled = Date.now()
      first.child.kill("SIGTERM")
      const exit = yield* Effect.promise(() => first.exited)
      const sentBeforeExit = rpc.calls.filter((c) => c.method === "sendTransaction").length
      console.log(`[drain figures, ${backend}] batch run with 3 items on ${LEDGER_MS / 1000} s ledgers: SIGTERM after the first was ` +
        `sent; ${sentBeforeExit} sent before exit, exit code ${exit.code} at +${((exit.at - signalled) / 1000).toFixed(2)} s`)
      expect(exit.code).toBe(0)
      expect(sentBeforeExit).toBe(1)
      expect(first.output()).toContain("transfer settled")

      // Worker rounds here come at start-up and then once a minute: it takes the job at once only if it was given back.
      const second = yield* spawnService(rpc, { ...database, RECONCILE_INTERVAL: "1 minute" })
      const session = yield* signIn(second.app, wallet)
      const done = yield* call(second.app, "GET", `/batch/${run.body.jobId}`, { token: session }).pipe(
        Effect.filterOrFail((r) => r.body.results?.length === 3, (r) => r),
        Effect.retry(Schedule.spaced("200 millis").pipe(Schedule.upTo("30 seconds"))),
        Effect.merge
      )
      expect(done.body.results.map((r: { status: string }) => r.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"])
      for (const result of done.body.results) expect(rpc.sendCount(result.hash)).toBe(1)
    }).pipe(Effect.scoped), 180_000)
})
