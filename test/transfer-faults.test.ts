import { expect, layer } from "@effect/vitest"
import { type FeeBumpTransaction, Keypair, Networks, rpc, type Transaction, TransactionBuilder } from "@stellar/stellar-sdk"
import pg from "pg"
import { Effect, Either, Fiber } from "effect"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import type { TransferOutcome } from "../src/Domain/Transfer.ts"
import { api } from "./support/Api.ts"
import type { Reply } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"
import { eventually, waitFor } from "./support/WaitFor.ts"

const FAST = { RECONCILE_INTERVAL: "200 millis", TRANSFER_POLL_MARGIN: "1 second", STELLAR_RPC_TIMEOUT: "500 millis" }

type Client = Effect.Effect.Success<ReturnType<typeof api>>

/** The typed failure `error`, checked to be the declared error tagged `tag` and narrowed to it. */
const tagged = <E extends { readonly _tag: string }, T extends E["_tag"]>(error: E, tag: T): Extract<E, { readonly _tag: T }> => {
  expect(error._tag, String(error)).toBe(tag)
  return error as Extract<E, { readonly _tag: T }>
}

/** The signed-in typed client of `app` and its POST /transfer. */
const transfers = (app: { readonly url: string }, token: string) =>
  Effect.map(api(app, token), (client) => ({
    client,
    transfer: (signedXDR: string) => client.transfers.transfer({ payload: { signedXDR } })
  }))

/** Polls GET /transfers/{hash} until the submission's `status` is `status` (or gives up after ~10 s). */
/** The transfer's status once it reads `status` (or as it reads after trying for a while). */
const settledAs = (client: Client, hash: string, status: TransferOutcome) =>
  eventually(client.transfers.status({ path: { hash } }), (res) => res.status === status, "10 seconds")

// The RPC's transaction answers alone: the archive would settle a transfer from its `transfer` event when they fail
// (test/archive.test.ts covers that path).
layer(TestAppLive({ ...FAST, SPONSOR_QUOTA: "2", ARCHIVE_INGEST: "false" }, { ledgerIntervalMs: 20 }), { excludeTestServices: true })("transfer faults", (it) => {
  it.effect("TRY_AGAIN_LATER is resent on a backoff until it is accepted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { transfer } = yield* transfers(app, token)
      app.rpc.scriptSend({ kind: "tryAgainLater" }, { times: 2 })
      const res = yield* transfer(innerTransfer(app, wallet))
      expect(res.status).toBe("SUCCESS")
      expect(app.rpc.sendCount(res.hash)).toBe(3)
    }))

  it.effect("ERROR is 422 with the decoded result code, and gives the quota back", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { client, transfer } = yield* transfers(app, token)
      const sequence = app.rpc.account(wallet.publicKey())!.sequence
      const badSeq = tagged(yield* transfer(innerTransfer(app, wallet, { sequence: sequence + 5n })).pipe(Effect.flip), "TransferRejected")
      expect(badSeq.resultCode).toBe("txBadSeq")
      expect(badSeq.hash).toMatch(/^[0-9a-f]{64}$/)
      app.rpc.scriptSend({ kind: "error", code: "txInsufficientFee" })
      const scripted = tagged(yield* transfer(innerTransfer(app, wallet)).pipe(Effect.flip), "TransferRejected")
      expect(scripted.resultCode).toBe("txInsufficientFee")
      expect((yield* client.transfers.status({ path: { hash: scripted.hash } })).status).toBe("REJECTED")
      for (let i = 0; i < 2; i++) expect((yield* transfer(innerTransfer(app, wallet))).status).toBe("SUCCESS")
      expect(tagged(yield* transfer(innerTransfer(app, wallet)).pipe(Effect.flip), "SponsorRefused").rule).toBe("quota")
    }))

  it.effect("a transaction applied as FAILED is 422 with its hash and result code", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { transfer } = yield* transfers(app, token)
      app.rpc.scriptSend({ kind: "failOnApply" })
      const res = tagged(yield* transfer(innerTransfer(app, wallet)).pipe(Effect.flip), "TransferRejected")
      expect(res.resultCode).toBe("txFailed: invokeHostFunctionTrapped")
      expect(app.rpc.transaction(res.hash)?.status).toBe("FAILED")
    }))

  for (const fault of [{ kind: "http500" }, { kind: "drop" }, { kind: "hang" }] as const) {
    it.effect(`RPC down (${fault.kind}) is 502, and the reconciler submits the transfer once RPC is back`, () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const { client, transfer } = yield* transfers(app, token)
        app.rpc.setFault(fault, { methods: ["sendTransaction"] })
        const signedXDR = innerTransfer(app, wallet)
        const res = yield* transfer(signedXDR).pipe(Effect.flip, Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
        expect(tagged(res, "UpstreamUnavailable").error).toContain("unreachable")
        const sent = yield* Effect.promise(() => waitFor(() => app.rpc.transactions.find((t) => t.source === wallet.publicKey())))
        const settled = yield* settledAs(client, sent.hash, "SUCCESS")
        expect(settled.status).toBe("SUCCESS")
      }))
  }

  it.effect("a transaction that never lands is 504 with its hash, and EXPIRED once a ledger closed past its maxTime", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { client, transfer } = yield* transfers(app, token)
      app.rpc.scriptSend({ kind: "neverLands" })
      const res = tagged(yield* transfer(innerTransfer(app, wallet, { validFor: 2 })).pipe(Effect.flip), "TransferTimeout")
      expect(res.hash).toMatch(/^[0-9a-f]{64}$/)
      // With a 1-second margin the answer may come just before the proving ledger (close times are whole seconds).
      expect(res.error).toMatch(/did not reach the ledger before its maxTime|not final yet/)
      const settled = yield* settledAs(client, res.hash, "EXPIRED")
      expect(settled).toMatchObject({ status: "EXPIRED", resultCode: "txTooLate" })
    }))

  it.effect("a transaction whose sequence number another one used is REJECTED (txBadSeq) once that one lands, long before its maxTime", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { client, transfer } = yield* transfers(app, token)
      // The node takes it (PENDING) and then drops it, as stellar-core drops a transaction another replaced by fee.
      app.rpc.scriptSend({ kind: "neverLands" })
      const validFor = 120
      const pending = yield* Effect.fork(transfer(innerTransfer(app, wallet, { validFor })).pipe(Effect.flip))
      const dropped = yield* Effect.promise(() => waitFor(() => app.rpc.transactions.find((t) => t.source === wallet.publicKey() && t.status === "DROPPED")))
      // Another transaction of the account, with the same sequence number, sent elsewhere and fee-bumped by someone else.
      const payer = Keypair.random()
      app.rpc.setAccount({ id: payer.publicKey() })
      const other = TransactionBuilder.fromXDR(innerTransfer(app, wallet, { validFor, register: false }), Networks.TESTNET) as Transaction
      const droppedTx = TransactionBuilder.fromXDR(dropped.envelopeXdr, Networks.TESTNET) as FeeBumpTransaction
      expect(other.sequence).toBe(droppedTx.innerTransaction.sequence)
      const bump = TransactionBuilder.buildFeeBumpTransaction(payer, "1000000", other, Networks.TESTNET)
      bump.sign(payer)
      const sent = yield* Effect.promise(() => new rpc.Server(app.rpc.url, { allowHttp: true }).sendTransaction(bump))
      expect(sent.status).toBe("PENDING")

      const res = tagged(yield* Fiber.join(pending), "TransferRejected")
      expect(res).toMatchObject({ hash: dropped.hash, resultCode: "txBadSeq" })
      expect(Date.now()).toBeLessThan(Number(other.timeBounds!.maxTime) * 1000)
      expect(yield* settledAs(client, dropped.hash, "REJECTED")).toMatchObject({ status: "REJECTED", resultCode: "txBadSeq" })
    }))

  it.effect("TRY_AGAIN_LATER past the deadline is 504; EXPIRED only once the ledger says so", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { client, transfer } = yield* transfers(app, token)
      app.rpc.scriptSend({ kind: "tryAgainLater" }, { times: 1000 })
      const refused = yield* transfer(innerTransfer(app, wallet, { validFor: 3 })).pipe(
        Effect.flip,
        Effect.ensuring(Effect.sync(() => app.rpc.clearScripts()))
      )
      const res = tagged(refused, "TransferTimeout")
      const settled = yield* settledAs(client, res.hash, "EXPIRED")
      expect(settled.status).toBe("EXPIRED")
      expect(app.rpc.transaction(res.hash)?.ledger).toBeUndefined()
    }))

  it.effect("a transfer whose outcome could not be read in time is 504, then settled as success by the reconciler", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { client, transfer } = yield* transfers(app, token)
      app.rpc.setFault({ kind: "http500" }, { methods: ["getTransaction"] })
      const refused = yield* transfer(innerTransfer(app, wallet, { validFor: 2 })).pipe(
        Effect.flip,
        Effect.ensuring(Effect.sync(() => app.rpc.setFault(null)))
      )
      const res = tagged(refused, "TransferTimeout")
      expect(res.error).toContain("not final yet")
      const settled = yield* settledAs(client, res.hash, "SUCCESS")
      expect(settled.status).toBe("SUCCESS")
    }))

  it.effect("a lagging RPC node: NOT_FOUND says nothing until its own ledger closed past maxTime; the payout never fails", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const contractor = Keypair.random().publicKey()
      app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, contractor)
      const { client } = yield* transfers(app, token)
      const added = yield* client.contractors.create({ payload: { name: "Lagged", address: StellarAddress.make(contractor) } })
      const batch = yield* client.batches.create({ payload: { name: "Lag" } })
      const id = batch.id
      const [payout] = yield* client.batches.addPayouts({ path: { id }, payload: { contractorIds: [added.id] } })
      yield* client.batches.ready({ path: { id } })

      app.rpc.lag(app.rpc.latestLedger) // the node stops ingesting; the network goes on and includes the transaction
      const signedXDR = innerTransfer(app, wallet, { to: contractor, validFor: 2 })
      const refused = yield* client.transfers.transfer({ payload: { signedXDR, payoutId: payout!.id } }).pipe(Effect.flip)
      const res = tagged(refused, "TransferTimeout")
      const landed = yield* Effect.promise(() => waitFor(() => app.rpc.transaction(res.hash)?.ledger))
      expect(landed).toBeGreaterThan(0)
      yield* Effect.sleep("3 seconds") // well past maxTime + TRANSFER_POLL_MARGIN, many reconciler rounds
      expect((yield* client.transfers.status({ path: { hash: res.hash } })).status).toBe("PENDING")
      const { items: payouts } = yield* client.batches.payouts({ path: { id }, urlParams: {} })
      expect(payouts[0]).toMatchObject({ status: "submitted" })
      expect(yield* client.batches.get({ path: { id } })).toMatchObject({ status: "started", failedCount: 0 })

      app.rpc.lag(null)
      const settled = yield* settledAs(client, res.hash, "SUCCESS")
      expect(settled.status).toBe("SUCCESS")
      const after = yield* client.batches.get({ path: { id } })
      expect(after).toMatchObject({ status: "completed", settledCount: 1, failedCount: 0 })
    }))
})


/** A request whose connection may die with the instance it was sent to. */
const tolerantPost = (url: string, token: string, signedXDR: string) =>
  Effect.tryPromise(() =>
    fetch(`${url}/transfer`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ signedXDR })
    }).then(async (r): Promise<Reply> => ({ status: r.status, body: await r.json(), headers: r.headers }))
  ).pipe(Effect.either)

layer(TestAppLive({ ...FAST, ARCHIVE_INGEST: "false" }, { ledgerIntervalMs: 0 }), { excludeTestServices: true })("restarts", (it) => {
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
      // Stopped once it has recorded the network's acceptance (`submitted`, written beside its first poll): a
      // submission an instance died before recording as accepted is sent again by design (harmless: DUPLICATE).
      yield* Effect.promise(async () => {
        const db = new pg.Client(app.config.DATABASE_URL)
        await db.connect()
        try {
          const until = Date.now() + 10_000
          while ((await db.query(`SELECT 1 FROM submissions WHERE outer_hash = $1 AND state = 'submitted'`, [pending.hash])).rowCount !== 1) {
            if (Date.now() > until) throw new Error("the submission was never recorded as submitted")
            await new Promise((r) => setTimeout(r, 20))
          }
        } finally {
          await db.end()
        }
      })
      yield* doomed.stop
      yield* Effect.fromFiber(request)
      app.rpc.advanceLedger(1)
      const { client } = yield* transfers(app, token)
      const settled = yield* settledAs(client, pending.hash, "SUCCESS")
      expect(settled.status).toBe("SUCCESS")
      expect(app.rpc.sendCount(pending.hash)).toBe(1)
    }))
})

// Without the archive's ingester: two instances under 200 concurrent requests on 2 cores need no background work beside.
layer(TestAppLive({ ...FAST, SPONSOR_QUOTA: "10", ARCHIVE_INGEST: "false" }, { ledgerIntervalMs: 20 }), { excludeTestServices: true })("concurrency", (it) => {
  it.effect("50 concurrent identical posts reach the RPC once and all get the same answer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const { transfer } = yield* transfers(app, token)
      const signedXDR = innerTransfer(app, wallet)
      const replies = yield* Effect.all(Array.from({ length: 50 }, () => transfer(signedXDR)), {
        concurrency: "unbounded"
      })
      expect(new Set(replies.map((r) => r.status))).toEqual(new Set(["SUCCESS"]))
      expect(new Set(replies.map((r) => r.hash)).size).toBe(1)
      expect(app.rpc.sendCount(replies[0]!.hash)).toBe(1)
      expect(app.rpc.calls.filter((c) => c.method === "sendTransaction")).toHaveLength(1)
    }))

  it.effect("200 concurrent distinct transfers from one account over two instances: exactly the quota of 10 is submitted", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const second = yield* app.startInstance
      const { wallet, token } = yield* walletEmployer(app)
      const first = yield* transfers(app, token)
      const other = yield* transfers(second, token)
      const envelopes = Array.from({ length: 200 }, () => innerTransfer(app, wallet))
      // Signing 200 envelopes holds the event loop for seconds on a loaded machine, past the server's 5 s keep-alive:
      // the sign-in's idle sockets are closed by then, but fetch learns it only when the loop turns. One turn first,
      // or the burst is sent on sockets already closed and fails in transport (CI: 9 RequestErrors of 200).
      yield* Effect.sleep("100 millis")
      // Every send fails in transport, so no reservation is given back during the burst (a transport failure
      // is ambiguous: the transaction may have reached the network) and the quota alone decides who is sent.
      app.rpc.resetCalls()
      app.rpc.setFault({ kind: "http500" }, { methods: ["sendTransaction"] })
      const replies = yield* Effect.all(
        envelopes.map((xdr, i) => (i % 2 === 0 ? first : other).transfer(xdr).pipe(Effect.flip, Effect.either)),
        { concurrency: "unbounded" }
      ).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
      const failures = replies.filter(Either.isRight).map((r) => r.right)
      const kinds: Record<string, number> = {}
      for (const e of failures) {
        const kind = e._tag === "SponsorRefused" ? `${e._tag}:${e.rule}` : `${e._tag}: ${"error" in e ? e.error : ""}`
        kinds[kind] = (kinds[kind] ?? 0) + 1
      }
      expect(kinds).toEqual({
        "SponsorRefused:quota": 190,
        "UpstreamUnavailable: Stellar RPC is unreachable; the transfer will be retried": 10
      })
      const sent = new Set(
        app.rpc.calls.filter((c) => c.method === "sendTransaction").map((c) => (c.params as { transaction: string }).transaction)
      )
      expect(sent.size).toBe(10)
    }))
})

