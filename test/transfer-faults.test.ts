import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Schedule } from "effect"
import { call, type Reply } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"

const FAST = { RECONCILE_INTERVAL: "200 millis", TRANSFER_POLL_MARGIN: "1 second", STELLAR_RPC_TIMEOUT: "500 millis" }

/** Polls GET /transfers/{hash} until the submission's `status` is `status` (or gives up after ~10 s). */
const eventually = (app: TestAppShape, token: string, hash: string, status: string) =>
  call(app, "GET", `/transfers/${hash}`, { token }).pipe(
    Effect.filterOrFail((res) => res.body.status === status, (res) => res),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("10 seconds"))),
    Effect.orElse(() => call(app, "GET", `/transfers/${hash}`, { token }))
  )

layer(TestAppLive({ ...FAST, SPONSOR_QUOTA: "2" }, { ledgerIntervalMs: 20 }), { excludeTestServices: true })("transfer faults", (it) => {
  it.effect("TRY_AGAIN_LATER is resent on a backoff until it is accepted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.scriptSend({ kind: "tryAgainLater" }, { times: 2 })
      const res = yield* postTransfer(app, token, innerTransfer(app, wallet))
      expect(res.status).toBe(200)
      expect(app.rpc.sendCount(res.body.hash)).toBe(3)
    }))

  it.effect("ERROR is 422 with the decoded result code, and gives the quota back", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const sequence = app.rpc.account(wallet.publicKey())!.sequence
      const badSeq = yield* postTransfer(app, token, innerTransfer(app, wallet, { sequence: sequence + 5n }))
      expect(badSeq.status).toBe(422)
      expect(badSeq.body).toMatchObject({ _tag: "TransferRejected", resultCode: "txBadSeq" })
      expect(badSeq.body.hash).toMatch(/^[0-9a-f]{64}$/)
      app.rpc.scriptSend({ kind: "error", code: "txInsufficientFee" })
      const scripted = yield* postTransfer(app, token, innerTransfer(app, wallet))
      expect(scripted.status).toBe(422)
      expect(scripted.body.resultCode).toBe("txInsufficientFee")
      expect((yield* call(app, "GET", `/transfers/${scripted.body.hash}`, { token })).body.status).toBe("REJECTED")
      for (let i = 0; i < 2; i++) expect((yield* postTransfer(app, token, innerTransfer(app, wallet))).status).toBe(200)
      expect((yield* postTransfer(app, token, innerTransfer(app, wallet))).body.rule).toBe("quota")
    }))

  it.effect("a transaction applied as FAILED is 422 with its hash and result code", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.scriptSend({ kind: "failOnApply" })
      const res = yield* postTransfer(app, token, innerTransfer(app, wallet))
      expect(res.status).toBe(422)
      expect(res.body.resultCode).toBe("txFailed: invokeHostFunctionTrapped")
      expect(app.rpc.transaction(res.body.hash)?.status).toBe("FAILED")
    }))

  for (const fault of [{ kind: "http500" }, { kind: "drop" }, { kind: "hang" }] as const) {
    it.effect(`RPC down (${fault.kind}) is 502, and the reconciler submits the transfer once RPC is back`, () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        app.rpc.setFault(fault, { methods: ["sendTransaction"] })
        const signedXDR = innerTransfer(app, wallet)
        const res = yield* postTransfer(app, token, signedXDR).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
        expect(res.status).toBe(502)
        expect(res.body.error).toContain("unreachable")
        const sent = yield* Effect.promise(() => waitFor(() => app.rpc.transactions.find((t) => t.source === wallet.publicKey())))
        const settled = yield* eventually(app, token, sent.hash, "SUCCESS")
        expect(settled.body.status).toBe("SUCCESS")
      }))
  }

  it.effect("a transaction that never lands is 504 with its hash, and EXPIRED once a ledger closed past its maxTime", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.scriptSend({ kind: "neverLands" })
      const res = yield* postTransfer(app, token, innerTransfer(app, wallet, { validFor: 2 }))
      expect(res.status).toBe(504)
      expect(res.body.hash).toMatch(/^[0-9a-f]{64}$/)
      // With a 1-second margin the answer may come just before the proving ledger (close times are whole seconds).
      expect(res.body.error).toMatch(/did not reach the ledger before its maxTime|not final yet/)
      const settled = yield* eventually(app, token, res.body.hash, "EXPIRED")
      expect(settled.body).toMatchObject({ status: "EXPIRED", resultCode: "txTooLate" })
    }))

  it.effect("TRY_AGAIN_LATER past the deadline is 504; EXPIRED only once the ledger says so", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.scriptSend({ kind: "tryAgainLater" }, { times: 1000 })
      const res = yield* postTransfer(app, token, innerTransfer(app, wallet, { validFor: 1 })).pipe(
        Effect.ensuring(Effect.sync(() => app.rpc.clearScripts()))
      )
      expect(res.status).toBe(504)
      const settled = yield* eventually(app, token, res.body.hash, "EXPIRED")
      expect(settled.body.status).toBe("EXPIRED")
      expect(app.rpc.transaction(res.body.hash)?.ledger).toBeUndefined()
    }))

  it.effect("a transfer whose outcome could not be read in time is 504, then settled as success by the reconciler", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.setFault({ kind: "http500" }, { methods: ["getTransaction"] })
      const res = yield* postTransfer(app, token, innerTransfer(app, wallet, { validFor: 2 })).pipe(
        Effect.ensuring(Effect.sync(() => app.rpc.setFault(null)))
      )
      expect(res.status).toBe(504)
      expect(res.body.error).toContain("not final yet")
      const settled = yield* eventually(app, token, res.body.hash, "SUCCESS")
      expect(settled.body.status).toBe("SUCCESS")
    }))

  it.effect("a lagging RPC node: NOT_FOUND says nothing until its own ledger closed past maxTime; the payout never fails", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const contractor = Keypair.random().publicKey()
      app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, contractor)
      const added = yield* call(app, "POST", "/contractors", { token, json: { name: "Lagged", address: contractor } })
      const batch = yield* call(app, "POST", "/batches", { token, json: { name: "Lag" } })
      const [payout] = (yield* call(app, "POST", `/batches/${batch.body.id}/payouts`, { token, json: { contractorIds: [added.body.id] } })).body
      yield* call(app, "POST", `/batches/${batch.body.id}/ready`, { token })

      app.rpc.lag(app.rpc.latestLedger) // the node stops ingesting; the network goes on and includes the transaction
      const signedXDR = innerTransfer(app, wallet, { to: contractor, validFor: 2 })
      const res = yield* call(app, "POST", "/transfer", { token, json: { signedXDR, payoutId: payout.id } })
      expect(res.status).toBe(504)
      const landed = yield* Effect.promise(() => waitFor(() => app.rpc.transaction(res.body.hash)?.ledger))
      expect(landed).toBeGreaterThan(0)
      yield* Effect.sleep("3 seconds") // well past maxTime + TRANSFER_POLL_MARGIN, many reconciler rounds
      expect((yield* call(app, "GET", `/transfers/${res.body.hash}`, { token })).body.status).toBe("PENDING")
      const payouts = yield* call(app, "GET", `/batches/${batch.body.id}/payouts`, { token })
      expect(payouts.body[0]).toMatchObject({ status: "submitted" })
      expect((yield* call(app, "GET", `/batches/${batch.body.id}`, { token })).body).toMatchObject({ status: "started", failedCount: 0 })

      app.rpc.lag(null)
      const settled = yield* eventually(app, token, res.body.hash, "SUCCESS")
      expect(settled.body.status).toBe("SUCCESS")
      const after = yield* call(app, "GET", `/batches/${batch.body.id}`, { token })
      expect(after.body).toMatchObject({ status: "completed", settledCount: 1, failedCount: 0 })
    }))
})

const waitFor = async <A>(probe: () => A | undefined, ms = 10_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error("timed out waiting")
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** A request whose connection may die with the instance it was sent to. */
const tolerantPost = (url: string, token: string, signedXDR: string) =>
  Effect.tryPromise(() =>
    fetch(`${url}/transfer`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ signedXDR })
    }).then(async (r): Promise<Reply> => ({ status: r.status, body: await r.json(), headers: r.headers }))
  ).pipe(Effect.either)

layer(TestAppLive(FAST, { ledgerIntervalMs: 0 }), { excludeTestServices: true })("restarts", (it) => {
  it.effect("an instance stopped mid-poll: another instance's reconciler finishes the submission, sent once", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const doomed = yield* app.startInstance
      const signedXDR = innerTransfer(app, wallet, { validFor: 120 })
      const request = yield* Effect.fork(tolerantPost(doomed.url, token, signedXDR))
      const pending = yield* Effect.promise(() =>
        waitFor(() => app.rpc.transactions.find((t) => t.source === wallet.publicKey() && t.status === "PENDING"))
      )
      yield* doomed.stop
      yield* Effect.fromFiber(request)
      app.rpc.advanceLedger(1)
      const settled = yield* eventually(app, token, pending.hash, "SUCCESS")
      expect(settled.body.status).toBe("SUCCESS")
      expect(app.rpc.sendCount(pending.hash)).toBe(1)
    }))
})

layer(TestAppLive({ ...FAST, SPONSOR_QUOTA: "10" }, { ledgerIntervalMs: 20 }), { excludeTestServices: true })("concurrency", (it) => {
  it.effect("50 concurrent identical posts reach the RPC once and all get the same answer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const signedXDR = innerTransfer(app, wallet)
      const replies = yield* Effect.all(Array.from({ length: 50 }, () => postTransfer(app, token, signedXDR)), {
        concurrency: "unbounded"
      })
      expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200]))
      expect(new Set(replies.map((r) => r.body.hash)).size).toBe(1)
      expect(app.rpc.sendCount(replies[0]!.body.hash)).toBe(1)
      expect(app.rpc.calls.filter((c) => c.method === "sendTransaction")).toHaveLength(1)
    }))

  it.effect("200 concurrent distinct transfers from one account over two instances: exactly the quota of 10 is submitted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const second = yield* app.startInstance
      const { wallet, token } = yield* walletEmployer(app)
      const envelopes = Array.from({ length: 200 }, () => innerTransfer(app, wallet))
      // Every send fails in transport, so no reservation is given back during the burst (a transport failure
      // is ambiguous: the transaction may have reached the network) and the quota alone decides who is sent.
      app.rpc.resetCalls()
      app.rpc.setFault({ kind: "http500" }, { methods: ["sendTransaction"] })
      const replies = yield* Effect.all(
        envelopes.map((xdr, i) => postTransfer(app, token, xdr, i % 2 === 0 ? app.url : second.url)),
        { concurrency: "unbounded" }
      ).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
      const refused = replies.filter((r) => r.status === 422 && r.body.rule === "quota")
      expect(refused).toHaveLength(190)
      expect(replies.filter((r) => r.status === 502)).toHaveLength(10)
      const sent = new Set(
        app.rpc.calls.filter((c) => c.method === "sendTransaction").map((c) => (c.params as { transaction: string }).transaction)
      )
      expect(sent.size).toBe(10)
    }))
})

