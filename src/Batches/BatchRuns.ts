import { StrKey, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk"
import { Cause, Clock, Duration, Effect, Exit, FiberSet, Layer, Match, Metric, Option, Queue } from "effect"
import { randomUUID } from "node:crypto"
import { Organizations } from "../Orgs/Organizations.ts"
import { OrgRepo } from "../Orgs/OrgRepo.ts"
import { OperationsConfig, StellarConfig, SubmissionConfig } from "../Config.ts"
import { BatchJob, type BatchRun, JobAccepted, JobResult } from "../Domain/Batch.ts"
import { NotFound } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"
import { TransferRequest } from "../Domain/Transfer.ts"
import { Drain } from "../Http/Drain.ts"
import { batchQueueDepth } from "../Observability/Metrics.ts"
import { keepLeased } from "../Sql/Lease.ts"
import { databaseUnavailable, repeatRounds } from "../Sql/Rounds.ts"
import { requireWallet, Submitter } from "../Transfers/Submitter.ts"
import { txHashHex } from "../Transfers/Envelope.ts"
import { answerFor } from "../Transfers/Settle.ts"
import { FINAL_STATES, type Submission, SubmissionRepo } from "../Transfers/SubmissionRepo.ts"
import { Transfers } from "../Transfers/Transfers.ts"
import { type JobItemRow, JobRepo, type JobRow, type ResultRow } from "./JobRepo.ts"

const unknownJob = new NotFound({ error: "unknown job" })
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

interface Planned {
  readonly i: number
  readonly item: JobItemRow
  /** The inner transaction's hash (hex), named in its result when it fails; empty when the envelope does not decode. */
  readonly innerHash: string
}

/**
 * Items of one source account, in sequence-number order; undecodable items stand alone. Only the hash is kept of
 * each decoded envelope: a decoded transfer holds about as much again as its XDR (~37 KB, mostly array buffers), and
 * a job's items wait up to a ledger each, in every running job.
 */
export const plan = (items: ReadonlyArray<JobItemRow>, networkPassphrase: string): ReadonlyArray<ReadonlyArray<Planned>> => {
  const groups = new Map<string, Array<Planned & { readonly sequence: bigint }>>()
  const alone: Array<ReadonlyArray<Planned>> = []
  items.forEach((item, i) => {
    let tx: Transaction | undefined
    try {
      const decoded = TransactionBuilder.fromXDR(item.signedXDR, networkPassphrase)
      if ("sequence" in decoded) tx = decoded
    } catch {
      tx = undefined
    }
    const innerHash = tx === undefined ? "" : txHashHex(tx)
    if (tx === undefined || !StrKey.isValidEd25519PublicKey(tx.source)) return alone.push([{ i, item, innerHash }])
    const group = groups.get(tx.source) ?? []
    group.push({ i, item, innerHash, sequence: BigInt(tx.sequence) })
    groups.set(tx.source, group)
  })
  const ordered = [...groups.values()].map((group) =>
    group
      .sort((a, b) => a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : a.i - b.i)
      .map(({ i, item, innerHash }) => ({ i, item, innerHash }))
  )
  return [...ordered, ...alone]
}

/** POST /batch and GET /batch/{jobId}: durable batch runs of signed transfers, worked in the background. */
export class BatchRuns extends Effect.Service<BatchRuns>()("Batches/BatchRuns", {
  effect: Effect.gen(function*() {
    const jobs = yield* JobRepo
    const orgs = yield* Organizations
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
        const byHash = new Map<string, Submission>()
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

    const start = Effect.fn("BatchRuns.start")(function*(session: Session, run: BatchRun) {
      yield* requireWallet(session)
      const orgId = yield* orgs.employerOrg(session)
      const id = randomUUID()
      const items = run.transactions.map((t) => ({ signedXDR: t.signedXDR, ...(t.payoutId === undefined ? {} : { payoutId: t.payoutId }) }))
      yield* jobs.create({ id, orgId, sessionSub: session.sub, items }, new Date(yield* Clock.currentTimeMillis))
      yield* Queue.offer(wake, undefined)
      return new JobAccepted({ jobId: id })
    })

    const poll = Effect.fn("BatchRuns.poll")(function*(orgId: OrgId, jobId: string) {
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
  dependencies: [JobRepo.Default, Organizations.Default, SubmissionRepo.Default]
}) {}

type SubmitError = Effect.Effect.Error<ReturnType<Transfers["submit"]>>

/** The result row of one item: its outcome named by the error's tag. */
export const itemResult = (i: number, innerHash: string, exit: Exit.Exit<{ readonly hash: string }, SubmitError>): ResultRow =>
  Exit.match(exit, {
    onSuccess: ({ hash }): ResultRow => ({ i, hash, status: "SUCCESS", error: null }),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onNone: (): ResultRow => ({ i, hash: innerHash, status: "ERROR", error: "internal error" }),
        onSome: (error) =>
          Match.value(error).pipe(
            Match.tagsExhaustive({
              TransferRejected: (e): ResultRow => ({ i, hash: e.hash, status: "FAILED", error: `${e.error} (${e.resultCode})` }),
              TransferTimeout: (e): ResultRow => ({ i, hash: e.hash, status: "TIMEOUT", error: e.error }),
              UpstreamUnavailable: (e): ResultRow => ({ i, hash: e.hash ?? innerHash, status: "ERROR", error: e.error }),
              // The worker records no result for an item the database stopped: it is run again once it is back.
              ServiceUnavailable: (e): ResultRow => ({ i, hash: innerHash, status: "ERROR", error: e.error }),
              InvalidRequest: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              Forbidden: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              SponsorRefused: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              NotFound: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              Conflict: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error })
            })
          )
      })
  })

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
    const drain = yield* Drain
    const { networkPassphrase } = yield* StellarConfig
    const { reconcileInterval, jobsPerInstance, accountsPerJob } = yield* SubmissionConfig
    const { workerMaxBackoff } = yield* OperationsConfig
    const leaseFor = Duration.toMillis(Duration.times(reconcileInterval, 3))
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const runItem = (job: JobRow, done: ReadonlySet<number>, sources: ReadonlySet<string>, skip: () => void) => (planned: Planned) =>
      Effect.gen(function*() {
        if (done.has(planned.i)) return
        if (yield* drain.draining) return skip()
        const submitter = new Submitter({ sub: job.sessionSub, orgId: job.orgId, allowedSources: sources })
        const request = TransferRequest.make({
          signedXDR: planned.item.signedXDR,
          ...(planned.item.payoutId === undefined ? {} : { payoutId: planned.item.payoutId })
        })
        const exit = yield* transfers.submit(submitter, request).pipe(Effect.exit)
        if (Exit.isFailure(exit) && databaseUnavailable(exit.cause)) return yield* Effect.failCause(exit.cause)
        yield* jobs.record(job.id, itemResult(planned.i, planned.innerHash, exit))
      })

    const heartbeat = (id: string) =>
      keepLeased(
        Effect.flatMap(now, (at) => jobs.lease(id, new Date(at.getTime() + leaseFor))),
        reconcileInterval,
        "a batch-run lease"
      )

    const release = (id: string) =>
      Effect.flatMap(now, (at) => jobs.release(id, at)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("could not give a batch run back to the queue", cause))
      )

    const work = (job: JobRow) =>
      Effect.gen(function*() {
        const done = new Set((yield* jobs.results(job.id)).map((r) => r.i))
        const sources = new Set(yield* orgs.memberAccounts(job.orgId))
        const groups = plan(job.items, networkPassphrase)
        let skipped = false
        const skip = () => void (skipped = true)
        yield* Effect.forEach(groups, (group) => Effect.forEach(group, runItem(job, done, sources, skip), { discard: true }), {
          concurrency: accountsPerJob,
          discard: true
        })
        if (skipped) return yield* release(job.id)
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
        Effect.withSpan("BatchWorker.work", { attributes: { jobId: job.id } })
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
