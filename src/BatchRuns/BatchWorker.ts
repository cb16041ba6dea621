import { Clock, Duration, Effect, Exit, FiberSet, Layer, Metric, Option, Queue } from "effect"
import { OrgRepo } from "../Orgs/OrgRepo.ts"
import { OperationsConfig, StellarConfig, SubmissionConfig } from "../Config.ts"
import { TransferRequest } from "../Domain/Transfer.ts"
import { Drain } from "../Http/Drain.ts"
import { batchQueueDepth } from "../Observability/Metrics.ts"
import { keepLeased } from "../Sql/Lease.ts"
import { databaseUnavailable, repeatRounds } from "../Workers/Rounds.ts"
import { Submitter } from "../Transfers/Submitter.ts"
import { Transfers } from "../Transfers/Transfers.ts"
import { JobRepo, type JobRow } from "./JobRepo.ts"
import { itemResult } from "./ItemResult.ts"
import { plan, type Planned } from "./Plan.ts"
import { BatchRuns } from "./BatchRuns.ts"
import * as Spans from "../Observability/Spans.ts"
import { ControlRepo } from "../Batches/ControlRepo.ts"
import type { PayoutId } from "../Domain/Ids.ts"

/** Why an item was not run this time: the instance is draining, or its payout's batch is paused. */
type Skip = "draining" | "paused"

/**
 * Every instance works the queue: it claims jobs with SKIP LOCKED, keeps their lease while working, and runs the
 * items of each source account in sequence order while different accounts proceed concurrently. An item that
 * already has a result is not run again; one that was sent before a crash is followed, not re-sent.
 *
 * A job occupies one of BATCH_WORKER_JOBS slots exactly while its fiber runs. A round that fails (the database
 * down) holds nothing and is retried after a bounded backoff. A job stopped by the database (or interrupted) goes
 * back to the queue at once; an item whose database write failed gets no result, so it is run again later
 * (followed, never re-sent). Once the instance drains, no job is claimed and no item started; the items in flight
 * reach their outcome within SHUTDOWN_TIMEOUT and the unfinished jobs go back to the queue.
 */
export const BatchWorkerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const jobs = yield* JobRepo
    const runs = yield* BatchRuns
    const transfers = yield* Transfers
    const orgs = yield* OrgRepo
    const controls = yield* ControlRepo
    const drain = yield* Drain
    const { networkPassphrase } = yield* StellarConfig
    const { reconcileInterval, jobsPerInstance, accountsPerJob } = yield* SubmissionConfig
    const { workerMaxBackoff } = yield* OperationsConfig
    const leaseFor = Duration.toMillis(Duration.times(reconcileInterval, 3))
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Whether the item pays a payout whose batch is paused: it then waits, queued (issue 22 §3). */
    const held = (payoutId: PayoutId | undefined) => payoutId === undefined ? Effect.succeed(false) : controls.pausedPayout(payoutId)

    const runItem = (
      job: JobRow,
      done: ReadonlySet<number>,
      sources: ReadonlySet<string>,
      linkedOnly: boolean,
      skip: (why: Skip) => void
    ) =>
    (planned: Planned) =>
      Effect.gen(function*() {
        if (done.has(planned.i)) return
        if (yield* drain.draining) return skip("draining")
        if (yield* held(planned.item.payoutId)) return skip("paused")
        // The member who posted the job, as the audit trail's submitter of its transfers.
        const submitter = new Submitter({
          sub: job.sessionSub,
          orgId: job.orgId,
          allowedSources: sources,
          actor: { type: "member", id: job.sessionSub },
          linkedOnly
        })
        const request = TransferRequest.make({
          signedXDR: planned.item.signedXDR,
          ...(planned.item.payoutId === undefined ? {} : { payoutId: planned.item.payoutId })
        })
        const exit = yield* transfers.submit(submitter, request).pipe(Effect.exit)
        if (Exit.isFailure(exit) && databaseUnavailable(exit.cause)) return yield* Effect.failCause(exit.cause)
        // Paused between the look above and the check: the refusal does not stand, the item waits.
        if (Exit.isFailure(exit) && (yield* held(planned.item.payoutId))) return skip("paused")
        yield* jobs.record(job.id, itemResult(planned.i, planned.innerHash, exit))
      })

    const heartbeat = (id: string) =>
      keepLeased(
        Effect.flatMap(now, (at) => jobs.lease(id, new Date(at.getTime() + leaseFor))),
        reconcileInterval,
        "a batch-run lease"
      )

    const release = (id: string, afterMs = 0) =>
      Effect.flatMap(now, (at) => jobs.release(id, new Date(at.getTime() + afterMs))).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("could not give a batch run back to the queue", cause))
      )

    const work = (job: JobRow) =>
      Effect.gen(function*() {
        const done = new Set((yield* jobs.results(job.id)).map((r) => r.i))
        const sources = new Set(yield* orgs.memberAccounts(job.orgId))
        const linkedOnly = (yield* orgs.approvalsRequired(job.orgId)) > 0
        const groups = plan(job.items, networkPassphrase)
        let skipped: Skip | undefined
        const skip = (why: Skip) => void (skipped = skipped === "draining" ? skipped : why)
        yield* Effect.forEach(groups, (group) => Effect.forEach(group, runItem(job, done, sources, linkedOnly, skip), { discard: true }), {
          concurrency: accountsPerJob,
          discard: true
        })
        // Draining: back to the queue at once, for another instance. Paused: looked at again an interval later.
        if (skipped === "draining") return yield* release(job.id)
        if (skipped === "paused") return yield* release(job.id, Duration.toMillis(reconcileInterval))
        yield* jobs.finish(job.id, yield* now, null)
        yield* Effect.logInfo("batch run finished").pipe(Effect.annotateLogs({ jobId: job.id, items: job.items.length }))
      }).pipe(
        Effect.raceFirst(heartbeat(job.id)),
        Effect.onExit((exit) =>
          Exit.isFailure(exit) && (Exit.isInterrupted(exit) || databaseUnavailable(exit.cause)) ? release(job.id) : Effect.void
        ),
        Effect.catchAllCause((cause) =>
          databaseUnavailable(cause)
            ? Effect.logWarning("batch run stopped: database unavailable; it goes back to the queue")
            : Effect.logError("batch run failed; it is taken up again once its lease lapses", cause)
        ),
        Effect.annotateLogs({ jobId: job.id }),
        Spans.withSpan("BatchWorker.work", { attributes: { jobId: job.id } })
      )

    const running = yield* FiberSet.make<void, never>()
    let working = 0
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        if (!(yield* drain.draining)) return
        yield* Effect.timeoutOption(Effect.interruptible(FiberSet.awaitEmpty(running)), yield* drain.remaining)
      })
    )

    /** Claims jobs while a slot is free; each claimed job holds its slot until its fiber ends. */
    const claimAll = Effect.gen(function*() {
      while (working < jobsPerInstance && !(yield* drain.draining)) {
        const at = yield* now
        const job = yield* jobs.claim(at, new Date(at.getTime() + leaseFor))
        if (Option.isNone(job)) return
        working += 1
        yield* FiberSet.run(
          running,
          work(job.value).pipe(Effect.ensuring(Effect.suspend(() => {
            working -= 1
            return Queue.offer(runs.wake, undefined)
          })))
        )
      }
    })

    const round = Effect.gen(function*() {
      yield* Metric.set(batchQueueDepth, yield* jobs.waiting(yield* now))
      yield* claimAll
    })

    yield* repeatRounds("batch worker", round, {
      interval: reconcileInterval,
      maxBackoff: workerMaxBackoff,
      pause: Effect.race(Queue.take(runs.wake), Effect.sleep(reconcileInterval))
    }).pipe(Effect.forkScoped)
  })
)
