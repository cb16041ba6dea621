import { TransactionBuilder } from "@stellar/stellar-sdk"
import { Deferred, Duration, Effect, Schedule } from "effect"
import { type BatchJob, BatchRun, JobItem, MAX_BATCH_ITEMS } from "../../src/Domain/Batch.ts"
import type { PayoutId } from "../../src/Domain/Ids.ts"
import { MAX_BODY_BYTES } from "../../src/Domain/RequestLimits.ts"
import { type BusyRetry, makeClient, type RetryBusy } from "./Client.ts"
import { type PayrollTransfer, runSignedPayroll, type SigningOptions } from "./PayrollJustInTime.ts"

export type { PayrollSigner, PayrollTransfer, SignedResult, SigningOptions, SigningProgress } from "./PayrollJustInTime.ts"
export { runSignedPayroll } from "./PayrollJustInTime.ts"

/** One signed transfer of a payroll, as the employer's client built it, with the payout it pays if any. */
export interface PayrollItem {
  readonly signedXDR: string
  readonly payoutId?: PayoutId
}

/** What became of item `i` of the list given to `runPayroll`. */
export interface PayrollResult {
  readonly i: number
  readonly jobId: string
  readonly hash: string
  readonly status: string
  readonly error?: string | undefined
}

export interface PayrollProgress {
  readonly jobs: number
  readonly jobsDone: number
  readonly items: number
  readonly itemsDone: number
  /** Set when a request was answered 503 (the service's database is away) or 429 and is about to be sent again. */
  readonly retrying?: BusyRetry
}

/** One `POST /batch`: the indexes (into the caller's list) it carries, and the earlier jobs it must wait for. */
export interface PlannedJob {
  readonly items: ReadonlyArray<number>
  readonly after: ReadonlyArray<number>
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8")
/** `{"transactions":[` + `]}`: the body around the items. */
const ENVELOPE_BYTES = bytes(JSON.stringify({ transactions: [] }))

/** Source account and sequence number of a signed envelope; none when it does not decode (the service will say why). */
const sourceOf = (signedXDR: string): { readonly source: string; readonly sequence: bigint } | undefined => {
  try {
    const tx = TransactionBuilder.fromXDR(signedXDR, "any network: only the source and sequence are read")
    return "sequence" in tx ? { source: tx.source, sequence: BigInt(tx.sequence) } : undefined
  } catch {
    return undefined
  }
}

/**
 * Splits signed transfers into `POST /batch` bodies that fit: at most 256 KiB of JSON (6 real transfers of about
 * 32 KB) and at most 100 items each. Each source account's transfers are kept together in sequence order; a job
 * that continues an account another job started waits for that job, since the service orders an account's
 * transfers within one job only.
 */
export const planJobs = (
  items: ReadonlyArray<PayrollItem>,
  limits: { readonly maxBytes?: number; readonly maxItems?: number } = {}
): ReadonlyArray<PlannedJob> => {
  const maxBytes = limits.maxBytes ?? MAX_BODY_BYTES
  const maxItems = limits.maxItems ?? MAX_BATCH_ITEMS
  const keyed = items.map((item, i) => ({ i, key: sourceOf(item.signedXDR) }))
  const ordered = [...keyed].sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? a.i - b.i : a.key === undefined ? 1 : -1
    if (a.key.source !== b.key.source) return a.key.source < b.key.source ? -1 : 1
    return a.key.sequence < b.key.sequence ? -1 : a.key.sequence > b.key.sequence ? 1 : a.i - b.i
  })
  const groups: Array<Array<number>> = []
  let current: Array<number> = []
  let size = ENVELOPE_BYTES
  for (const { i } of ordered) {
    const itemBytes = bytes(JSON.stringify(items[i]))
    if (ENVELOPE_BYTES + itemBytes > maxBytes) throw new RangeError(`transfer ${i} alone does not fit in a request body`)
    if (current.length > 0 && (size + 1 + itemBytes > maxBytes || current.length >= maxItems)) {
      groups.push(current)
      current = []
      size = ENVELOPE_BYTES
    }
    size += (current.length === 0 ? 0 : 1) + itemBytes
    current.push(i)
  }
  if (current.length > 0) groups.push(current)
  const sourcesOf = groups.map((group) => new Set(group.flatMap((i) => keyed[i]!.key === undefined ? [] : [keyed[i]!.key!.source])))
  return groups.map((group, j) => ({
    items: group,
    after: groups.flatMap((_, k) => k < j && [...sourcesOf[j]!].some((s) => sourcesOf[k]!.has(s)) ? [k] : [])
  }))
}

export interface BatchOptions {
  readonly onProgress?: (progress: PayrollProgress) => void
  readonly pollEvery?: Duration.DurationInput
  /** How answers 503 and 429 are retried (default: 20 times each, honouring `Retry-After` up to 60 s). */
  readonly retry?: Omit<RetryBusy, "onRetry">
}

/**
 * Runs a whole payroll through batch runs: splits the signed transfers into jobs that fit, posts them (a job that
 * continues a source account after the one before it is done), and follows every job until each item has a result
 * or the job reports an error, calling `onProgress` as results come in. A request answered 503 (the service's
 * database briefly away) or 429 is sent again after its `Retry-After`, reported through `onProgress` (`retrying`),
 * instead of aborting the payroll. Results come back in the order of `items`.
 * Provide an `HttpClient` (e.g. `FetchHttpClient.layer`).
 */
const runBatchPayroll = (
  baseUrl: string,
  token: string,
  items: ReadonlyArray<PayrollItem>,
  options: BatchOptions
) =>
  Effect.gen(function*() {
    const plan = planJobs(items)
    const done = plan.map(() => 0)
    const report = (retrying?: BusyRetry) =>
      options.onProgress?.({
        jobs: plan.length,
        jobsDone: plan.filter((job, j) => done[j] === job.items.length).length,
        items: items.length,
        itemsDone: done.reduce((a, b) => a + b, 0),
        ...(retrying === undefined ? {} : { retrying })
      })
    const client = yield* makeClient(baseUrl, token, { retryBusy: { ...options.retry, onRetry: report } })
    const finished = yield* Effect.forEach(plan, () => Deferred.make<void>())
    const isOver = (job: BatchJob, j: number) => job.results.length >= plan[j]!.items.length || job.error !== undefined

    const run = (planned: PlannedJob, j: number) =>
      Effect.gen(function*() {
        yield* Effect.forEach(planned.after, (k) => Deferred.await(finished[k]!), { discard: true })
        // The server validates every item; the client only packs them.
        const transactions = planned.items.map((i) => new JobItem(items[i]!, true))
        // One key per job: a POST retried after a 503 or a lost answer replays the job it created, never a second one.
        const starter = yield* makeClient(baseUrl, token, {
          retryBusy: { ...options.retry, onRetry: report },
          headers: { "idempotency-key": `payroll-${globalThis.crypto.randomUUID()}` }
        })
        const { jobId } = yield* starter.batchRuns.start({ payload: new BatchRun({ transactions }, true) })
        const poll = client.batchRuns.poll({ path: { jobId } }).pipe(
          Effect.tap((job) => {
            if (job.results.length === done[j]) return
            done[j] = job.results.length
            report()
          })
        )
        return yield* poll.pipe(
          Effect.repeat(
            Schedule.recurWhile((job: BatchJob) => !isOver(job, j)).pipe(
              Schedule.addDelay(() => options.pollEvery ?? Duration.seconds(1))
            )
          )
        )
      }).pipe(Effect.ensuring(Deferred.succeed(finished[j]!, undefined)))

    report()
    const jobs = yield* Effect.forEach(plan, run, { concurrency: "unbounded" })
    return jobs.flatMap((job, j) =>
      job.results.map((r): PayrollResult => ({
        i: plan[j]!.items[r.i]!,
        jobId: job.jobId,
        hash: r.hash,
        status: r.status,
        ...(r.error === undefined ? {} : { error: r.error })
      }))
    ).sort((a, b) => a.i - b.i)
  }).pipe(Effect.withSpan("PayrollClient.runPayroll"))

/**
 * Runs a whole payroll, in one of two ways:
 * - with transfers signed in advance (`{signedXDR, payoutId?}`), through batch runs (above): fine while the payroll
 *   lands within the transfers' time bounds (at most 10 minutes, about 120 transfers from one account);
 * - with `{to, data, payoutId?}` and a `sign` callback, just in time (`runSignedPayroll`): each transfer prepared by
 *   the service, signed and submitted when its turn comes, so a payroll of any length from one account never expires.
 */
export function runPayroll(
  baseUrl: string,
  token: string,
  items: ReadonlyArray<PayrollItem>,
  options?: BatchOptions
): ReturnType<typeof runBatchPayroll>
export function runPayroll(
  baseUrl: string,
  token: string,
  items: ReadonlyArray<PayrollTransfer>,
  options: SigningOptions
): ReturnType<typeof runSignedPayroll>
export function runPayroll(
  baseUrl: string,
  token: string,
  items: ReadonlyArray<PayrollItem> | ReadonlyArray<PayrollTransfer>,
  options: BatchOptions | SigningOptions = {}
): ReturnType<typeof runBatchPayroll> | ReturnType<typeof runSignedPayroll> {
  return "sign" in options
    ? runSignedPayroll(baseUrl, token, items as ReadonlyArray<PayrollTransfer>, options)
    : runBatchPayroll(baseUrl, token, items as ReadonlyArray<PayrollItem>, options)
}
