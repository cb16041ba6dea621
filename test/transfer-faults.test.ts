import { expect, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { call, type Reply } from "./support/Client.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"

const FAST = { RECONCILE_INTERVAL: "200 millis", TRANSFER_POLL_MARGIN: "1 second", STELLAR_RPC_TIMEOUT: "500 millis" }

/** Polls GET /transfers/{hash} until the submission reaches `state` (or gives up after ~10 s). */
const eventually = (app: TestAppShape, token: string, hash: string, state: string) =>
  call(app, "GET", `/transfers/${hash}`, { token }).pipe(
    Effect.filterOrFail((res) => res.body.state === state, (res) => res),
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
      expect((yield* call(app, "GET", `/transfers/${scripted.body.hash}`, { token })).body.state).toBe("rejected")
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
        const settled = yield* eventually(app, token, sent.hash, "success")
        expect(settled.body.state).toBe("success")
      }))
  }

  it.effect("a transaction that never lands is 504 with its hash; the reconciler then settles it as expired", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.scriptSend({ kind: "neverLands" })
      const res = yield* postTransfer(app, token, innerTransfer(app, wallet, { validFor: 2 }))
      expect(res.status).toBe(504)
      expect(res.body.hash).toMatch(/^[0-9a-f]{64}$/)
      expect(res.body.error).toContain("not final yet")
      const settled = yield* eventually(app, token, res.body.hash, "expired")
      expect(settled.body.state).toBe("expired")
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
      const settled = yield* eventually(app, token, res.body.hash, "success")
      expect(settled.body.state).toBe("success")
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
      const settled = yield* eventually(app, token, pending.hash, "success")
      expect(settled.body.state).toBe("success")
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

