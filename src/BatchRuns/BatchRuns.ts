import { Clock, Effect, Option, Queue } from "effect"
import { randomUUID } from "node:crypto"
import { BatchJob, type BatchRun, JobAccepted, JobResult } from "../Domain/Batch.ts"
import { NotFound } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"
import type { Actor } from "../Domain/Actor.ts"
import { requireWallet } from "../Transfers/Submitter.ts"
import { answerFor } from "../Transfers/Settle.ts"
import { FINAL_STATES, type SubmissionOutcome, SubmissionRepo } from "../Transfers/SubmissionRepo.ts"
import { JobRepo, type ResultRow } from "./JobRepo.ts"
import { itemResult } from "./ItemResult.ts"
import * as Spans from "../Observability/Spans.ts"

const unknownJob = new NotFound({ error: "unknown job" })
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** POST /batch and GET /batch/{jobId}: durable batch runs of signed transfers, worked in the background. */
export class BatchRuns extends Effect.Service<BatchRuns>()("BatchRuns/BatchRuns", {
  effect: Effect.gen(function*() {
    const jobs = yield* JobRepo
    const submissions = yield* SubmissionRepo
    const wake = yield* Queue.sliding<void>(1)

    /**
     * The submission is the source of truth: an item whose transaction has a final submission of this organization
     * is reported as POST /transfer answers for that submission (settled later by the reconciler, or found after a
     * crash), whatever was recorded when the item ran; an item without one keeps its recorded result.
     */
    const truthOf = (orgId: OrgId, stored: ReadonlyArray<ResultRow>) =>
      Effect.gen(function*() {
        const hashes = stored.map((r) => r.hash).filter((hash) => hash.length > 0)
        const rows = yield* submissions.findMany(orgId, hashes)
        if (rows.length === 0) return stored
        const byHash = new Map<string, SubmissionOutcome>()
        for (const row of rows) byHash.set(row.innerHash, row).set(row.outerHash, row)
        return yield* Effect.forEach(stored, (r) => {
          const row = byHash.get(r.hash)
          // While in flight the recorded result stands (e.g. ERROR: RPC unreachable), unless it refused the item:
          // a refusal is never true of a transaction that has a submission.
          return row === undefined || (!FINAL_STATES.includes(row.state) && r.status !== "REFUSED")
            ? Effect.succeed(r)
            : Effect.map(Effect.exit(answerFor(row)), (exit) => itemResult(r.i, row.innerHash, exit))
        })
      })

    const start = Spans.fn("BatchRuns.start")(function*(session: Session, actor: Actor, run: BatchRun) {
      yield* requireWallet(session)
      const orgId = actor.orgId
      const id = randomUUID()
      const items = run.transactions.map((t) => ({ signedXDR: t.signedXDR, ...(t.payoutId === undefined ? {} : { payoutId: t.payoutId }) }))
      yield* jobs.create({ id, orgId, sessionSub: session.sub, items }, new Date(yield* Clock.currentTimeMillis))
      yield* Queue.offer(wake, undefined)
      return new JobAccepted({ jobId: id })
    })

    const poll = Spans.fn("BatchRuns.poll")(function*(orgId: OrgId, jobId: string) {
      if (!UUID.test(jobId)) return yield* unknownJob
      const job = yield* jobs.find(orgId, jobId.toLowerCase())
      if (Option.isNone(job)) return yield* unknownJob
      const stored = yield* jobs.results(job.value.id)
      const results = yield* truthOf(orgId, stored)
      return new BatchJob({
        jobId: job.value.id,
        createdAt: job.value.createdAt.getTime(),
        results: results.map((r) => new JobResult({ i: r.i, hash: r.hash, status: r.status, ...(r.error === null ? {} : { error: r.error }) })),
        ...(job.value.error === null ? {} : { error: job.value.error })
      })
    })

    return { start, poll, wake } as const
  }),
  dependencies: [JobRepo.Default, SubmissionRepo.Default]
}) {}
