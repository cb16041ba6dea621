import { expect, layer } from "@effect/vitest"
import { FeeBumpTransaction, Keypair, Networks, rpc, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect, Either, Option, Schedule } from "effect"
import { BatchRun, JobItem } from "../src/Domain/Batch.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import type { TransferOutcome } from "../src/Domain/Transfer.ts"
import { api } from "./support/Api.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"
import { eventually, waitFor } from "./support/WaitFor.ts"

// Issue 14: what the service says about a payment follows its submission, after retries, crashes and RPC answers
// it did not expect. Stellar RPC's answers are rewritten by the loopback (`rewriteAnswers`) into what another node
// version might send; the SDK's own parser (`rpc.Server.getTransaction`) is the reference for "undecodable".

const FAST = { RECONCILE_INTERVAL: "200 millis", TRANSFER_POLL_MARGIN: "1 second", STELLAR_RPC_TIMEOUT: "500 millis" }

type Client = Effect.Effect.Success<ReturnType<typeof api>>

/** The transfer's status once it reads `status` (or as it reads after trying for a while). */
const settledAs = (client: Client, hash: string, status: TransferOutcome) =>
  eventually(client.transfers.status({ path: { hash } }), (res) => res.status === status, "15 seconds")


/** An employer with one ready contractor and a ready batch paying it: the payout to link a transfer to. */
const payable = (app: TestAppShape) =>
  Effect.gen(function*() {
    const { wallet, token } = yield* walletEmployer(app)
    const client = yield* api(app, token)
    const contractor = Keypair.random().publicKey()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, contractor)
    const added = yield* client.contractors.create({ payload: { name: "Payee", address: StellarAddress.make(contractor) } })
    const batch = yield* client.batches.create({ payload: { name: "November" } })
    const [payout] = yield* client.batches.addPayouts({ path: { id: batch.id }, payload: { contractorIds: [added.id] } })
    yield* client.batches.ready({ path: { id: batch.id } })
    return { wallet, token, client, contractor, batchId: batch.id, payoutId: payout!.id }
  })

/** The transfer's hash an error names. */
const hashOf = (error: object) => ("hash" in error && typeof error.hash === "string" ? error.hash : "")

/** Drops `status` from an answer, as a node of an unknown version might. */
const withoutStatus = ({ status: _status, ...rest }: Record<string, unknown>) => rest

/** XDR no SDK can decode in place of the envelope and the meta, the rest of the answer intact. */
const undecodableXdr = (answer: Record<string, unknown>) =>
  answer.status === "NOT_FOUND" ? answer : { ...answer, envelopeXdr: "AAAAAP////8=", resultMetaXdr: "//////////8=" }

layer(TestAppLive(FAST, { ledgerIntervalMs: 20 }), { excludeTestServices: true })("the submission is the truth", (it) => {
  it.effect("a payout-linked transfer posted again, concurrently and after it settled, gets the first answer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, client, contractor, batchId, payoutId } = yield* payable(app)
      const signedXDR = innerTransfer(app, wallet, { to: contractor })
      const post = client.transfers.transfer({ payload: { signedXDR, payoutId } })
      const [first, second] = yield* Effect.all([post, post], { concurrency: "unbounded" })
      const again = yield* post
      expect(first.status).toBe("SUCCESS")
      expect(second).toEqual(first)
      expect(again).toEqual(first)
      expect(app.rpc.sendCount(first.hash)).toBe(1)
      const { items: [payout] } = yield* client.batches.payouts({ path: { id: batchId }, urlParams: {} })
      expect([payout?.status, Option.getOrNull(payout!.hash)]).toEqual(["settled", first.hash])
      expect(yield* client.batches.get({ path: { id: batchId } })).toMatchObject({ status: "completed", settledCount: 1, failedCount: 0 })
    }))

  it.effect("while the first is in flight a retry is 504 with the same hash, never 422 about its own payout", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, client, contractor, payoutId } = yield* payable(app)
      app.rpc.lag(app.rpc.latestLedger) // the node stops ingesting: nothing is seen final
      const signedXDR = innerTransfer(app, wallet, { to: contractor, validFor: 3 })
      const post = client.transfers.transfer({ payload: { signedXDR, payoutId } })
      const first = yield* post.pipe(Effect.flip)
      const retry = yield* post.pipe(Effect.flip)
      expect(first._tag).toBe("TransferTimeout")
      expect(retry).toEqual(first)
      app.rpc.lag(null)
      const settled = yield* settledAs(client, hashOf(first), "SUCCESS")
      expect(settled.status).toBe("SUCCESS")
      expect(yield* post).toEqual({ hash: settled.hash, status: "SUCCESS" })
    }))

  it.effect("a batch-run item answered ERROR reports SUCCESS once the reconciler lands its transfer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, client, contractor, batchId, payoutId } = yield* payable(app)
      app.rpc.setFault({ kind: "http500" }, { methods: ["sendTransaction"] })
      const signedXDR = innerTransfer(app, wallet, { to: contractor })
      const { jobId } = yield* client.batchRuns.start({ payload: new BatchRun({ transactions: [new JobItem({ signedXDR, payoutId })] }) })
      const poll = client.batchRuns.poll({ path: { jobId } })
      const recorded = yield* poll.pipe(
        Effect.filterOrFail((job) => job.results.length === 1, () => "no result yet"),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("10 seconds"))),
        Effect.ensuring(Effect.sync(() => app.rpc.setFault(null)))
      )
      expect(recorded.results[0]).toMatchObject({ status: "ERROR" })
      const landed = yield* Effect.promise(() => waitFor(() => app.rpc.transactions.find((t) => t.source === wallet.publicKey() && t.ledger !== undefined)))
      yield* settledAs(client, landed.hash, "SUCCESS")
      const job = yield* poll
      expect(job.results).toEqual([{ i: 0, hash: landed.hash, status: "SUCCESS" }])
      const { items: [payout] } = yield* client.batches.payouts({ path: { id: batchId }, urlParams: {} })
      expect([payout?.status, Option.getOrNull(payout!.hash)]).toEqual(["settled", landed.hash])
    }))

  it.effect("one account's transfers left unsent by an RPC outage are resent in sequence order and all land", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const client = yield* api(app, token)
      const sequence = app.rpc.account(wallet.publicKey())!.sequence
      const signed = [0n, 1n, 2n].map((k) => innerTransfer(app, wallet, { sequence: sequence + k }))
      app.rpc.setFault({ kind: "http500" }, { methods: ["sendTransaction"] })
      const { jobId } = yield* client.batchRuns.start({ payload: new BatchRun({ transactions: signed.map((signedXDR) => new JobItem({ signedXDR })) }) })
      const poll = client.batchRuns.poll({ path: { jobId } })
      const recorded = yield* poll.pipe(
        Effect.filterOrFail((job) => job.results.length === 3, () => "not every item has a result yet"),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("15 seconds"))),
        Effect.ensuring(Effect.sync(() => app.rpc.setFault(null)))
      )
      expect(recorded.results.map((r) => r.status)).toEqual(["ERROR", "ERROR", "ERROR"])
      const done = yield* poll.pipe(
        Effect.filterOrFail((job) => job.results.every((r) => r.status === "SUCCESS"), (job) => job),
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("15 seconds"))),
        Effect.orElse(() => poll)
      )
      expect(done.results.map((r) => r.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"])
      const landed = app.rpc.transactions.filter((t) => t.source === wallet.publicKey() && t.status === "SUCCESS")
      expect(landed).toHaveLength(3)
      expect(landed.every((t) => t.sends.every((send) => send.errorCode !== "txBadSeq"))).toBe(true)
    }))

  it.effect("an outage that ends mid-run: the account's next item waits for the unsent one instead of failing txBadSeq", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      // The first item's four tries fail: it is recorded ERROR and left to the reconciler, and the run goes on to the
      // next item at once, with the network back: a plain txBadSeq. Then again, with the next item's first try failing
      // too: its txBadSeq is unconfirmed (that try might have reached the network), and must not be followed as if it
      // had been accepted either.
      for (const unconfirmed of [false, true]) {
        const { wallet, token } = yield* walletEmployer(app)
        const client = yield* api(app, token)
        const sequence = app.rpc.account(wallet.publicKey())!.sequence
        const signed = [0n, 1n, 2n].map((k) => innerTransfer(app, wallet, { sequence: sequence + k }))
        const innerHash = (xdr: string) => {
          const tx = TransactionBuilder.fromXDR(xdr, Networks.TESTNET)
          return Buffer.from((tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx).hash()).toString("hex")
        }
        // How many of each item's sends fail before reaching the network: the first item's four tries in the run and
        // the reconciler's first resend (four tries), so that it is not on the ledger when the next item is sent.
        const failing = new Map([[innerHash(signed[0]!), 8], [innerHash(signed[1]!), unconfirmed ? 1 : 0]])
        app.rpc.setFault({ kind: "http500" }, {
          methods: ["sendTransaction"],
          when: (params) => {
            const hash = innerHash(String((params as { transaction?: unknown }).transaction))
            const left = failing.get(hash) ?? 0
            if (left > 0) failing.set(hash, left - 1)
            return left > 0
          }
        })
        const { jobId } = yield* client.batchRuns.start({ payload: new BatchRun({ transactions: signed.map((signedXDR) => new JobItem({ signedXDR })) }) })
        const poll = client.batchRuns.poll({ path: { jobId } })
        const done = yield* poll.pipe(
          Effect.filterOrFail((job) => job.results.length === 3 && job.results.every((r) => r.status === "SUCCESS"), (job) => job),
          Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("15 seconds"))),
          Effect.orElse(() => poll)
        )
        expect(done.results.map((r) => [r.status, r.error])).toEqual([["SUCCESS", undefined], ["SUCCESS", undefined], ["SUCCESS", undefined]])
        const mine = app.rpc.transactions.filter((t) => t.source === wallet.publicKey())
        expect(mine.map((t) => t.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"])
        app.rpc.setFault(null)
      }
    }))

  it.effect("getTransaction answers whose XDR the SDK cannot decode still settle, SUCCESS and FAILED alike", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const client = yield* api(app, token)
      app.rpc.rewriteAnswers("getTransaction", undecodableXdr)
      const landed = yield* client.transfers.transfer({ payload: { signedXDR: innerTransfer(app, wallet) } }).pipe(
        Effect.ensuring(Effect.sync(() => app.rpc.clearRewrites()))
      )
      expect(landed.status).toBe("SUCCESS")
      // The reference: the SDK's own parser rejects the very answer the service settled on.
      app.rpc.rewriteAnswers("getTransaction", undecodableXdr, { times: 1 })
      const sdk = new rpc.Server(app.rpc.url, { allowHttp: true })
      yield* Effect.promise(() => sdk.getTransaction(landed.hash).then(() => "decoded", () => "rejected")).pipe(
        Effect.map((verdict) => expect(verdict).toBe("rejected"))
      )
      app.rpc.rewriteAnswers("getTransaction", (answer) => ({ ...undecodableXdr(answer), resultXdr: "AAAA" }))
      app.rpc.scriptSend({ kind: "failOnApply" })
      const failed = yield* client.transfers.transfer({ payload: { signedXDR: innerTransfer(app, wallet) } }).pipe(
        Effect.flip,
        Effect.ensuring(Effect.sync(() => app.rpc.clearRewrites()))
      )
      expect(failed).toMatchObject({ _tag: "TransferRejected", resultCode: "unknown" })
      expect((yield* client.transfers.status({ path: { hash: hashOf(failed) } })).status).toBe("FAILED")
    }))

  it.effect("a send answer without status is 502 with the transfer's hash, never 500; the reconciler settles it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const client = yield* api(app, token)
      // Every try of the request (the first and its three quick retries) gets the unreadable answer.
      app.rpc.rewriteAnswers("sendTransaction", withoutStatus, { times: 4 })
      const refused = yield* client.transfers.transfer({ payload: { signedXDR: innerTransfer(app, wallet) } }).pipe(Effect.flip)
      expect(refused._tag).toBe("UpstreamUnavailable")
      const hash = hashOf(refused)
      expect(hash).toMatch(/^[0-9a-f]{64}$/)
      expect((yield* settledAs(client, hash, "SUCCESS")).status).toBe("SUCCESS")
      expect(app.rpc.transaction(hash)?.status).toBe("SUCCESS")
    }))
})

/**
 * `count` transfers in flight when their instance stopped (ledgers close only when told), then the time until the
 * surviving instance's reconciler has settled them all. The first `poisoned` employers' transactions get answers
 * without a status from both sendTransaction and getTransaction throughout: their instance answered 502 and left
 * them `pending` (never known to be accepted), so the reconciler both looks them up and sends them again, reading
 * nothing it can understand. That must cost the others nothing; once the answers are readable they settle too.
 */
const orphans = (app: TestAppShape, count: number, poisoned: number) =>
  Effect.gen(function*() {
    const employers = yield* Effect.all(Array.from({ length: count }, () => walletEmployer(app)), { concurrency: 4 })
    const bad = new Set(employers.slice(0, poisoned).map((e) => e.wallet.publicKey()))
    const poisonedSource = (t: { readonly source: string } | undefined) => t !== undefined && bad.has(t.source)
    app.rpc.rewriteAnswers("sendTransaction", withoutStatus, {
      when: (params) => poisonedSource(app.rpc.transactions.find((t) => t.envelopeXdr === (params as { transaction?: unknown }).transaction))
    })
    app.rpc.rewriteAnswers("getTransaction", withoutStatus, {
      when: (params) => poisonedSource(app.rpc.transaction(String((params as { hash?: unknown }).hash)))
    })
    const doomed = yield* app.startInstance
    const posts = yield* Effect.forEach(employers, ({ wallet, token }) =>
      Effect.fork(Effect.tryPromise(() =>
        fetch(`${doomed.url}/transfer`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ signedXDR: innerTransfer(app, wallet, { validFor: 120 }) })
        }).then(async (r) => ({ status: r.status, body: await r.json() as unknown }))
      ).pipe(Effect.either)))
    const sources = new Set(employers.map((e) => e.wallet.publicKey()))
    // 30 s: past 10 s once in CI against the PostgreSQL server at load average 8 (a CREATE DATABASE's checkpoint
    // syncing 1,000 files for 1.6 s meanwhile); the settle times after it are the figure, not this.
    const pending = yield* Effect.promise(() =>
      waitFor(() => {
        const sent = app.rpc.transactions.filter((t) => sources.has(t.source) && t.status === "PENDING")
        return sent.length === count ? sent : undefined
      }, 30_000, `all ${count} transfers sent`)
    )
    const answered = yield* Effect.forEach(posts.slice(0, poisoned), (post) => post.await)
    yield* doomed.stop
    yield* Effect.forEach(posts, (post) => post.await, { discard: true })
    const started = Date.now()
    app.rpc.advanceLedger(1)
    const clients = new Map<string, Client>()
    for (const { wallet, token } of employers) clients.set(wallet.publicKey(), yield* api(app, token))
    const settle = (t: (typeof pending)[number]) => settledAs(clients.get(t.source)!, t.hash, "SUCCESS")
    const healthy = yield* Effect.forEach(pending.filter((t) => !bad.has(t.source)), settle, { concurrency: 8 })
    const seconds = (Date.now() - started) / 1000
    const poison = pending.filter((t) => bad.has(t.source))
    const stuck = yield* Effect.forEach(poison, (t) => clients.get(t.source)!.transfers.status({ path: { hash: t.hash } }))
    app.rpc.clearRewrites()
    const healed = yield* Effect.forEach(poison, settle)
    return { seconds, healthy, stuck, healed, answered }
  })

/** `reconciler_rounds_total{result="failed"}` as /metrics reports it. */
const failedRounds = (app: TestAppShape) =>
  Effect.promise(() => fetch(`${app.url}/metrics`).then((r) => r.text())).pipe(
    Effect.map((text) => Number(/^reconciler_rounds_total\{[^}]*result="failed"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0))
  )

// The reconciler's path alone: the archive would settle the poisoned transfer from its `transfer` event instead
// (test/archive.test.ts covers that path).
// STELLAR_RPC_TIMEOUT: sign-ins of 40 employers must not time out on a loaded machine (the loopback RPC shares the
// test's event loop: at 3 s one SEP-10 account read timed out in a CI run at load average 7, a 502 on sign-in). No
// answer in this block is meant to time out (every one comes at once, readable or not), so the timeout is far above
// any wait; this block is not about timeouts, and its test is given 90 s (CI on a loaded machine, the PostgreSQL
// server shared with two other suites: past the default 30 s once, with every transfer still settling). The settle
// times are its figure, printed, not asserted.
layer(
  TestAppLive({ ...FAST, STELLAR_RPC_TIMEOUT: "15 seconds", RECONCILE_INTERVAL: "1 second", WORKER_MAX_BACKOFF: "4 seconds", ARCHIVE_INGEST: "false" }, {
    ledgerIntervalMs: 0
  }),
  {
  timeout: 90_000,
  excludeTestServices: true
})("orphans and a poisoned answer", (it) => {
  it.effect("20 orphaned transfers settle as fast with one unreadable transfer among them; that one settles once readable", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const clean = yield* orphans(app, 20, 0)
      const failedBefore = yield* failedRounds(app)
      const poisoned = yield* orphans(app, 20, 1)
      const failedAfter = yield* failedRounds(app)
      console.log(
        `[orphans] 20 orphaned transfers settled in ${clean.seconds.toFixed(1)} s; with one transfer whose every answer was unreadable ` +
          `the other 19 in ${poisoned.seconds.toFixed(1)} s (RECONCILE_INTERVAL 1 s)`
      )
      expect(clean.healthy.map((s) => s.status)).toEqual(Array(20).fill("SUCCESS"))
      expect(poisoned.healthy.map((s) => s.status)).toEqual(Array(19).fill("SUCCESS"))
      expect(poisoned.answered.map((exit) => exit._tag === "Success" && Either.isRight(exit.value) ? exit.value.right.status : 0)).toEqual([502])
      expect(poisoned.stuck.map((s) => s.status)).toEqual(["PENDING"])
      expect(poisoned.healed.map((s) => s.status)).toEqual(["SUCCESS"])
      // The unreadable answer concerned its own submission only: no reconciler round failed on it.
      expect(failedAfter).toBe(failedBefore)
    }), { timeout: 90_000 })
})
