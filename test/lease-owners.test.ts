import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option, Schedule } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { JobRepo } from "../src/BatchRuns/JobRepo.ts"
import type { OrgId } from "../src/Domain/Ids.ts"
import { isQueryCanceled, orUnavailable } from "../src/Sql/Errors.ts"
import { SubmissionRepo } from "../src/Transfers/SubmissionRepo.ts"
import { backend, MigratedDatabase } from "./support/TestDatabase.ts"

layer(Layer.mergeAll(SubmissionRepo.Default, JobRepo.Default).pipe(Layer.provideMerge(MigratedDatabase)), {
  excludeTestServices: true
})(`lease owners (${backend})`, (it) => {
  it.effect("only the instance holding a lease renews or releases it; a claim takes it over", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const submissions = yield* SubmissionRepo
      const jobs = yield* JobRepo
      const now = Date.now()
      const at = (ms: number) => new Date(now + ms)
      const orgId = randomUUID() as OrgId
      yield* sql`INSERT INTO orgs ${sql.insert({ id: orgId, name: "Lease Co", createdBy: "GA" })}`
      const leaseOf = (innerHash: string) =>
        sql<{ leaseUntil: Date; leaseOwner: string | null }>`
          SELECT lease_until, lease_owner FROM submissions WHERE inner_hash = ${innerHash}`.pipe(Effect.map((rows) => rows[0]!))

      yield* submissions.create({
        innerHash: "lease-1",
        outerHash: "outer-lease-1",
        envelope: "AAAA",
        source: "GA",
        sessionSub: "GA",
        orgId,
        payoutId: null,
        maxTime: at(60_000),
        leaseUntil: at(-1_000),
        sequence: "1"
      }, undefined)
      const creator = (yield* leaseOf("lease-1")).leaseOwner
      expect(creator).not.toBeNull()

      // The lapsed lease is claimed by another instance, which now owns it.
      const claimed = yield* submissions.claimStale(at(0), at(30_000), 10, "other-instance")
      expect(claimed.map((s) => s.innerHash)).toEqual(["lease-1"])
      expect(yield* leaseOf("lease-1")).toMatchObject({ leaseOwner: "other-instance", leaseUntil: at(30_000) })

      // The creator can neither renew nor release it any more; the owner can.
      yield* submissions.lease("lease-1", at(90_000))
      yield* submissions.lease("lease-1", at(0))
      expect((yield* leaseOf("lease-1")).leaseUntil).toEqual(at(30_000))
      yield* submissions.lease("lease-1", at(0), "other-instance")
      expect((yield* leaseOf("lease-1")).leaseUntil).toEqual(at(0))

      const jobId = randomUUID()
      yield* jobs.create({ id: jobId, orgId, sessionSub: "GA", items: [{ signedXDR: "AAAA" }] }, at(-1_000))
      const job = yield* jobs.claim(at(0), at(30_000), "worker-a")
      expect(Option.map(job, (j) => j.id)).toEqual(Option.some(jobId))
      const jobLease = sql<{ leaseUntil: Date }>`SELECT lease_until FROM batch_jobs WHERE id = ${jobId}`.pipe(
        Effect.map((rows) => rows[0]!.leaseUntil)
      )
      yield* jobs.lease(jobId, at(90_000), "worker-b")
      yield* jobs.release(jobId, at(0), "worker-b")
      expect(yield* jobLease).toEqual(at(30_000))
      yield* jobs.lease(jobId, at(90_000), "worker-a")
      expect(yield* jobLease).toEqual(at(90_000))
      yield* jobs.release(jobId, at(0), "worker-a")
      expect(yield* jobLease).toEqual(at(0))
    }))

  it.effect("a submission the reconciler cannot settle waits twice as long after each failed round, up to the cap", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const submissions = yield* SubmissionRepo
      const now = new Date()
      const orgId = randomUUID() as OrgId
      yield* sql`INSERT INTO orgs ${sql.insert({ id: orgId, name: "Backoff Co", createdBy: "GB" })}`
      yield* submissions.create({
        innerHash: "backoff-1",
        outerHash: "outer-backoff-1",
        envelope: "AAAA",
        source: "GB",
        sessionSub: "GB",
        orgId,
        payoutId: null,
        maxTime: new Date(now.getTime() + 60_000),
        leaseUntil: now,
        sequence: "1"
      }, undefined)
      const waits: Array<number> = []
      for (let round = 0; round < 5; round++) {
        yield* submissions.retryLater("backoff-1", now, Duration.seconds(1), Duration.seconds(4))
        const [row] = yield* sql<{ leaseUntil: Date }>`SELECT lease_until FROM submissions WHERE inner_hash = 'backoff-1'`
        waits.push(row!.leaseUntil.getTime() - now.getTime())
      }
      expect(waits).toEqual([1_000, 2_000, 4_000, 4_000, 4_000])
      // A round that understood the network's answer forgets the failures.
      yield* submissions.release("backoff-1", now)
      yield* submissions.retryLater("backoff-1", now, Duration.seconds(1), Duration.seconds(4))
      const [row] = yield* sql<{ leaseUntil: Date }>`SELECT lease_until FROM submissions WHERE inner_hash = 'backoff-1'`
      expect(row!.leaseUntil.getTime() - now.getTime()).toBe(1_000)
    }))

  // A lease's renewal or release is the statement most often run right after an interrupted one on the same
  // connection (src/Sql/Lease.ts), so a stray cancel lands on it first.
  it.effect("a statement a stray cancel reached runs again, once, outside a transaction; inside one the failure stands", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      /** Runs `SELECT pg_sleep` (30 s on the runs in `slow`, else none) and cancels each slow run from another connection. */
      const canceled = (slow: ReadonlyArray<number>, inTransaction: boolean) =>
        Effect.gen(function*() {
          const tag = randomBytes(8).toString("hex")
          let runs = 0
          const statement = Effect.suspend(() => {
            runs += 1
            return sql.unsafe(`SELECT pg_sleep($1) /* ${tag} */`, [slow.includes(runs) ? 30 : 0])
          })
          const canceler = sql<{ n: number }>`
            SELECT count(pg_cancel_backend(pid))::int AS n FROM pg_stat_activity
            WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE ${`%/* ${tag} */%`}`.pipe(
              Effect.flatMap(([row]) => row!.n > 0 ? Effect.void : Effect.fail("not yet")),
              Effect.retry({ schedule: Schedule.spaced("5 millis") }),
              Effect.forever
            )
          const cancels = yield* Effect.fork(canceler)
          const work = orUnavailable(statement)
          const exit = yield* Effect.exit(inTransaction ? sql.withTransaction(work) : work)
          yield* Fiber.interrupt(cancels)
          const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined
          return { ok: Exit.isSuccess(exit), canceled: isQueryCanceled(defect), runs }
        })
      expect(yield* canceled([1], false)).toEqual({ ok: true, canceled: false, runs: 2 })
      expect(yield* canceled([1, 2], false)).toEqual({ ok: false, canceled: true, runs: 2 })
      expect(yield* canceled([1], true)).toEqual({ ok: false, canceled: true, runs: 1 })
    }))
})
