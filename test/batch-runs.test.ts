import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Fiber, Schedule } from "effect"
import { BatchRun, JobItem } from "../src/Domain/Batch.ts"
import { type PayrollProgress, planJobs, runPayroll } from "../client/src/PayrollClient.ts"
import { api } from "./support/Api.ts"
import { call, signIn } from "./support/Client.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

/** An organization whose `n` wallets (the owner and n-1 joined members) all exist on the loopback ledger. */
const orgWithWallets = (app: TestAppShape, n: number) =>
  Effect.gen(function*() {
    const owner = yield* walletEmployer(app, "Multi Wallet Co")
    const wallets = [owner.wallet]
    for (let i = 1; i < n; i++) {
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const invite = yield* (yield* api(app, owner.token)).account.inviteEmployer({ payload: { role: "payer" } })
      const token = yield* signIn(app, wallet)
      yield* (yield* api(app, token)).account.joinOrg({ path: { token: invite.token } })
      wallets.push(wallet)
    }
    return { token: owner.token, wallets }
  })

/** `perWallet` consecutive transfers from each wallet, shuffled the way a client might send them. */
const transfersFrom = (app: TestAppShape, wallets: ReadonlyArray<Keypair>, perWallet: number) => {
  const items = wallets.flatMap((wallet) => {
    const base = app.rpc.account(wallet.publicKey())!.sequence
    return Array.from({ length: perWallet }, (_, k) => ({
      wallet,
      sequence: base + BigInt(k) + 1n,
      signedXDR: innerTransfer(app, wallet, { sequence: base + BigInt(k), validFor: 300 })
    }))
  })
  return items.map((item, i) => ({ item, key: (i * 7919) % items.length })).sort((a, b) => a.key - b.key).map((x) => x.item)
}

/** The `/batch` routes of the typed client signed in with `token`, against `url` (default: the first instance). */
const runs = (app: TestAppShape, token: string, url = app.url) =>
  api({ url }, token).pipe(Effect.map((client) => client.batchRuns))

/** The body of `POST /batch` carrying these signed envelopes. */
const run = (signedXDRs: ReadonlyArray<string>) => ({
  payload: new BatchRun({ transactions: signedXDRs.map((signedXDR) => new JobItem({ signedXDR })) })
})

/** The error a request failed with, as its tag and fields. */
const failure = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flip(effect).pipe(Effect.map((e) => ({ ...e }) as { readonly _tag: E["_tag"]; readonly error?: string }))

const pollJob = (app: TestAppShape, token: string, jobId: string, expected: number) =>
  Effect.gen(function*() {
    const client = yield* runs(app, token)
    const poll = client.poll({ path: { jobId } })
    return yield* poll.pipe(
      Effect.filterOrFail((job) => job.results.length === expected, (job) => job),
      Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("45 seconds"))),
      Effect.orElse(() => poll)
    )
  })

const FAST = { RECONCILE_INTERVAL: "200 millis", TRANSFER_POLL_MARGIN: "1 second", ...privyConfig }

layer(TestAppLive(FAST, { ledgerIntervalMs: 20 }), { excludeTestServices: true })("batch runs", (it) => {
  it.effect("POST /batch validates its input and session; unknown jobs are 404 {error: \"unknown job\"}", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token, wallet } = yield* walletEmployer(app)
      const client = yield* runs(app, token)
      // Bodies the contract refuses (no items, more than 100): the typed client would not encode them.
      expect((yield* call(app, "POST", "/batch", { token, json: { transactions: [] } })).status).toBe(400)
      const tooMany = Array.from({ length: 101 }, () => ({ signedXDR: "AAAA" }))
      expect((yield* call(app, "POST", "/batch", { token, json: { transactions: tooMany } })).status).toBe(400)
      const one = run(["AAAA"])
      const email = yield* (yield* api(app)).auth.privy({ payload: { token: yield* privyToken() } })
      expect((yield* failure((yield* runs(app, email.token)).start(one)))._tag).toBe("NotImplemented")
      expect((yield* failure((yield* runs(app, yield* signIn(app))).start(one)))._tag).toBe("Forbidden")
      for (const jobId of ["7b0c4a43-3c5e-4c5a-9c56-1f0f6f1f7d10", "not-a-job"]) {
        expect(yield* failure(client.poll({ path: { jobId } }))).toMatchObject({ _tag: "NotFound", error: "unknown job" })
      }
      const started = yield* client.start(run([innerTransfer(app, wallet)]))
      const other = yield* walletEmployer(app, "Other")
      expect(yield* failure((yield* runs(app, other.token)).poll({ path: { jobId: started.jobId } })))
        .toMatchObject({ _tag: "NotFound", error: "unknown job" })
      const mine = yield* pollJob(app, token, started.jobId, 1)
      expect(typeof mine.createdAt).toBe("number")
      expect(mine.results[0]).toMatchObject({ i: 0, status: "SUCCESS" })
    }))

  it.effect("organization invites add wallets; each is single-use", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const owner = yield* api(app, (yield* walletEmployer(app, "Inviting Co")).token)
      const invite = yield* owner.account.inviteEmployer({ payload: { role: "payer" } })
      const member = yield* api(app, yield* signIn(app))
      const joined = yield* member.account.joinOrg({ path: { token: invite.token } })
      expect(joined.name).toBe("Inviting Co")
      expect(yield* member.account.me({ urlParams: {} })).toMatchObject({ roles: ["employer"], employer: { orgName: "Inviting Co" } })
      const late = yield* api(app, yield* signIn(app))
      expect((yield* failure(late.account.joinOrg({ path: { token: invite.token } })))._tag).toBe("NotFound")
      const second = yield* owner.account.inviteEmployer({ payload: { role: "payer" } })
      expect((yield* failure(member.account.joinOrg({ path: { token: second.token } })))._tag).toBe("Conflict")
      const loner = yield* api(app, yield* signIn(app))
      expect((yield* failure(loner.account.inviteEmployer({ payload: { role: "payer" } })))._tag).toBe("Forbidden")
    }))

  it.effect("100 real-size transfers across 10 accounts: one body is 413; the client's runPayroll splits them into jobs that fit", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token, wallets } = yield* orgWithWallets(app, 10)
      const items = transfersFrom(app, wallets, 10)
      const transactions = items.map((x) => ({ signedXDR: x.signedXDR }))
      expect(transactions.every((t) => t.signedXDR.length > 20_000)).toBe(true) // the old 20,000-character cap
      // Over 256 KiB: the body has to reach the server whole to be refused before it is read.
      const whole = yield* call(app, "POST", "/batch", { token, json: { transactions } })
      expect(whole.status).toBe(413)
      expect(whole.body.error).toMatch(/256 KiB.*split/)
      const plan = planJobs(transactions)
      expect(plan.length).toBeGreaterThanOrEqual(17) // 6 envelopes of ~32 KB (~42.7 K base64 characters) per job
      for (const job of plan) expect(Buffer.byteLength(JSON.stringify({ transactions: job.items.map((i) => transactions[i]) }))).toBeLessThanOrEqual(256 * 1024)

      const progress: Array<PayrollProgress> = []
      const results = yield* runPayroll(app.url, token, transactions, { onProgress: (p) => progress.push(p), pollEvery: "100 millis" }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      expect(results.map((r) => r.i)).toEqual(Array.from({ length: 100 }, (_, i) => i))
      expect(results.filter((r) => r.status !== "SUCCESS")).toEqual([])
      expect(new Set(results.map((r) => r.jobId)).size).toBe(plan.length)
      expect(progress[0]).toMatchObject({ jobs: plan.length, jobsDone: 0, items: 100, itemsDone: 0 })
      expect(progress[progress.length - 1]).toMatchObject({ jobsDone: plan.length, itemsDone: 100 })
      expect(progress.map((p) => p.itemsDone)).toEqual([...progress.map((p) => p.itemsDone)].sort((a, b) => a - b))
      for (const wallet of wallets) {
        const mine = items.flatMap((x, i) => x.wallet === wallet ? [{ sequence: x.sequence, hash: results[i]!.hash }] : [])
        const ledgers = mine.sort((a, b) => Number(a.sequence - b.sequence)).map((x) => app.rpc.transaction(x.hash)!.ledger!)
        expect(ledgers).toEqual([...ledgers].sort((a, b) => a - b))
        expect(new Set(ledgers).size).toBe(10)
        expect(app.rpc.account(wallet.publicKey())!.sequence).toBe(mine[mine.length - 1]!.sequence)
      }
      for (const r of results) expect(app.rpc.sendCount(r.hash)).toBe(1)
    }), 90_000)

  it.effect("an item that breaks a rule gets its own result; the others go on", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token, wallet } = yield* walletEmployer(app)
      const stranger = Keypair.random()
      app.rpc.setAccount({ id: stranger.publicKey() })
      const transactions = [
        { signedXDR: "garbage" },
        { signedXDR: innerTransfer(app, wallet, { fn: "transfer" }) },
        { signedXDR: innerTransfer(app, stranger) },
        { signedXDR: innerTransfer(app, wallet) }
      ]
      const started = yield* (yield* runs(app, token)).start(run(transactions.map((t) => t.signedXDR)))
      const job = yield* pollJob(app, token, started.jobId, 4)
      expect(job.results.map((r) => r.status)).toEqual(["REFUSED", "REFUSED", "REFUSED", "SUCCESS"])
      expect(job.results[0]!.error).toContain("not a base64 transaction envelope")
      expect(job.results[1]!.error).toContain("confidential_transfer")
      expect(job.results[2]!.error).toContain("source account")
    }))

  it.effect("two instances share one queue of jobs and nothing is done twice", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const second = yield* app.startInstance
      const { token, wallets } = yield* orgWithWallets(app, 6)
      const jobIds: Array<string> = []
      for (const [k, wallet] of wallets.entries()) {
        const items = transfersFrom(app, [wallet], 3)
        const url = k % 2 === 0 ? app.url : second.url
        const started = yield* (yield* runs(app, token, url)).start(run(items.map((x) => x.signedXDR)))
        jobIds.push(started.jobId)
      }
      const jobs = yield* Effect.forEach(jobIds, (id) => pollJob(app, token, id, 3), { concurrency: "unbounded" })
      const hashes = jobs.flatMap((j) => j.results.map((r) => {
        expect(r.status).toBe("SUCCESS")
        return r.hash
      }))
      expect(new Set(hashes).size).toBe(18)
      for (const hash of hashes) expect(app.rpc.sendCount(hash)).toBe(1)
      expect(app.rpc.calls.filter((c) => c.method === "sendTransaction").length).toBeGreaterThanOrEqual(18)
    }))
})

layer(TestAppLive({ ...FAST, RECONCILE_INTERVAL: "1 second" }, { ledgerIntervalMs: 0 }), { excludeTestServices: true })(
  "batch runs across a crash",
  (it) => {
    it.effect("an instance stopped mid-job: another instance finishes it without sending anything twice", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const doomed = yield* app.startInstance
        const { token, wallets } = yield* orgWithWallets(app, 1)
        const items = transfersFrom(app, wallets, 5)
        const started = yield* (yield* runs(app, token, doomed.url)).start(run(items.map((x) => x.signedXDR)))
        yield* Effect.promise(async () => {
          while (!app.rpc.transactions.some((t) => t.status === "PENDING")) await new Promise((r) => setTimeout(r, 20))
        })
        yield* doomed.stop
        const ledgers = yield* Effect.fork(
          Effect.sync(() => app.rpc.advanceLedger(1)).pipe(Effect.repeat(Schedule.spaced("50 millis")))
        )
        const job = yield* pollJob(app, token, started.jobId, 5)
        yield* Fiber.interrupt(ledgers)
        expect(job.results.map((r) => r.status)).toEqual(Array(5).fill("SUCCESS"))
        for (const r of job.results) expect(app.rpc.sendCount(r.hash)).toBe(1)
      }))
  }
)
