import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Networks, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect, Layer, Schedule } from "effect"
import { SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import { ChallengeRepo } from "../src/Auth/ChallengeRepo.ts"
import { JobRepo } from "../src/BatchRuns/JobRepo.ts"
import type { OrgId } from "../src/Domain/Ids.ts"
import { Housekeeping } from "../src/Server/Housekeeping.ts"
import { SubmissionRepo } from "../src/Transfers/SubmissionRepo.ts"
import { call } from "./support/Client.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { backend, MigratedDatabase } from "./support/TestDatabase.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"
import { eventually } from "./support/WaitFor.ts"

const DAY = 24 * 3600 * 1000

/** A session as the service issues it, valid at the app's (shifted) time: SEP-10 itself checks the wall clock. */
const sessionAt = (app: TestAppShape, sub: string) =>
  Effect.promise(() => {
    const now = Math.floor(app.clock.unsafeCurrentTimeMillis() / 1000)
    return new SignJWT({ method: "sep10" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuer(app.config.PUBLIC_URL!)
      .setSubject(sub).setIssuedAt(now).setExpirationTime(now + 600).setJti(randomUUID())
      .sign(new TextEncoder().encode(app.jwtSecret))
  })

/** Polls `path` until it answers `status` (a housekeeping round runs every 200 ms here). */
const until = (app: TestAppShape, path: string, token: string, status: number) =>
  eventually(call(app, "GET", path, { token }), (r) => r.status === status)

layer(TestAppLive({ HOUSEKEEPING_INTERVAL: "200 millis", RECONCILE_INTERVAL: "200 millis" }, { ledgerIntervalMs: 20 }), {
  excludeTestServices: true
})(`housekeeping over HTTP (${backend})`, (it) => {
  it.effect("a finished batch run and a final submission are pruned once older than RETENTION (30 days)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      const signedXDR = innerTransfer(app, wallet, { validFor: 120 })
      const transfer = yield* call(app, "POST", "/transfer", { token, json: { signedXDR } })
      expect(transfer.status).toBe(200)
      const innerHash = Buffer.from(TransactionBuilder.fromXDR(signedXDR, Networks.TESTNET).hash()).toString("hex")
      const run = yield* call(app, "POST", "/batch", { token, json: { transactions: [{ signedXDR: innerTransfer(app, wallet, { validFor: 120 }) }] } })
      const finished = yield* call(app, "GET", `/batch/${run.body.jobId}`, { token }).pipe(
        Effect.filterOrFail((r) => r.body.results?.length === 1, (r) => r),
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("15 seconds"))),
        Effect.merge
      )
      expect(finished.body.results[0].status).toBe("SUCCESS")

      app.clock.offsetMs = 29 * DAY
      const early = yield* sessionAt(app, wallet.publicKey())
      yield* Effect.sleep("1 second")
      expect((yield* call(app, "GET", `/batch/${run.body.jobId}`, { token: early })).status).toBe(200)
      expect((yield* call(app, "GET", `/transfers/${innerHash}`, { token: early })).status).toBe(200)

      app.clock.offsetMs = 31 * DAY
      const later = yield* sessionAt(app, wallet.publicKey())
      const gone = yield* until(app, `/batch/${run.body.jobId}`, later, 404)
      expect(gone.body).toMatchObject({ error: "unknown job" })
      expect((yield* until(app, `/transfers/${innerHash}`, later, 404)).status).toBe(404)
    }).pipe(Effect.ensuring(Effect.map(TestApp, (app) => (app.clock.offsetMs = 0)))))
})


const Repos = Layer.mergeAll(Housekeeping.Default, ChallengeRepo.Default, SubmissionRepo.Default, JobRepo.Default).pipe(
  Layer.provideMerge(MigratedDatabase)
)

layer(Repos, { excludeTestServices: true })(`housekeeping rules (${backend})`, (it) => {
  it.effect("prunes exactly what is spent, in batches, and two instances pruning at once share the work", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const challenges = yield* ChallengeRepo
      const submissions = yield* SubmissionRepo
      const jobs = yield* JobRepo
      const housekeeping = yield* Housekeeping
      const now = Date.now()
      const ago = (ms: number) => new Date(now - ms)

      for (let i = 0; i < 1_200; i++) yield* challenges.consume(`expired-${i}`, ago(60_000))
      yield* challenges.consume("live", new Date(now + 300_000))

      const orgId = randomUUID() as OrgId
      yield* sql`INSERT INTO orgs ${sql.insert({ id: orgId, name: "Prune Co", createdBy: "GA" })}`
      const submission = (innerHash: string, state: string, updatedAt: Date, reservedAt: Date) =>
        Effect.gen(function*() {
          yield* submissions.create(
            {
              innerHash,
              outerHash: `outer-${innerHash}`,
              envelope: "AAAA",
              source: "GA",
              sessionSub: "GA",
              orgId,
              payoutId: null,
              maxTime: updatedAt,
              leaseUntil: updatedAt,
              sequence: "1"
            },
            { limit: 1_000_000, since: new Date(0), now: reservedAt }
          )
          yield* sql`UPDATE submissions SET state = ${state}, updated_at = ${updatedAt} WHERE inner_hash = ${innerHash}`
        })
      yield* submission("old-final", "success", ago(31 * DAY), ago(31 * DAY))
      yield* submission("old-pending", "pending", ago(31 * DAY), ago(31 * DAY))
      yield* submission("recent-final", "failed", ago(29 * DAY), ago(2 * DAY))
      yield* submission("fresh", "success", ago(60_000), ago(60_000))
      yield* sql`INSERT INTO faucet_grants ${sql.insert({ address: "GB", grantedAt: ago(25 * 3600 * 1000), innerHash: "g1" })}`
      yield* sql`INSERT INTO faucet_grants ${sql.insert({ address: "GC", grantedAt: ago(3600 * 1000), innerHash: "g2" })}`

      const job = (id: string, finishedAt: Date | undefined) =>
        Effect.gen(function*() {
          yield* jobs.create({ id, orgId, sessionSub: "GA", items: [{ signedXDR: "AAAA" }] }, ago(40 * DAY))
          yield* jobs.record(id, { i: 0, hash: "h", status: "SUCCESS", error: null })
          if (finishedAt !== undefined) yield* jobs.finish(id, finishedAt, null)
        })
      const oldJob = randomUUID()
      const recentJob = randomUUID()
      const openJob = randomUUID()
      yield* job(oldJob, ago(31 * DAY))
      yield* job(recentJob, ago(29 * DAY))
      yield* job(openJob, undefined)

      const [a, b] = yield* Effect.all([housekeeping.round(), housekeeping.round()], { concurrency: 2 })
      const total = (key: keyof typeof a) => a[key] + b[key]
      expect(total("challenges")).toBe(1_200)
      expect(total("jobs")).toBe(1)
      expect(total("submissions")).toBe(1)
      expect(total("faucetGrants")).toBe(1)
      // Every reservation made more than 24 h (the quota window) ago, whatever its submission's state.
      expect(total("quota")).toBe(3)

      const left = (table: string) => sql.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`).pipe(Effect.map((r) => r[0]!.n))
      expect(yield* left("sep10_used_nonces")).toBe(1)
      expect((yield* sql<{ innerHash: string }>`SELECT inner_hash FROM submissions ORDER BY inner_hash`).map((r) => r.innerHash))
        .toEqual(["fresh", "old-pending", "recent-final"])
      expect((yield* sql<{ innerHash: string }>`SELECT inner_hash FROM sponsor_quota`).map((r) => r.innerHash)).toEqual(["fresh"])
      expect(yield* left("faucet_grants")).toBe(1)
      expect((yield* sql<{ id: string }>`SELECT id FROM batch_jobs ORDER BY id`).map((r) => r.id).sort()).toEqual([recentJob, openJob].sort())
      expect(yield* sql`SELECT 1 FROM batch_job_results WHERE job_id = ${oldJob}`).toEqual([])

      const again = yield* housekeeping.round()
      expect(Object.values(again).every((n) => n === 0)).toBe(true)
    }))
})
