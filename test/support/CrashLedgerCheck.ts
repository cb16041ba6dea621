import type { LoopbackRpc } from "./LoopbackRpc.ts"

/** One signed transfer the employer's client made: its inner hash is how the ledger's record is found. */
export interface Payment {
  readonly label: string
  readonly innerHash: string
  readonly payoutId?: string
}

/** An HTTP answer as the client saw it; `status` 0 when none came (the connection died, or no answer in time). */
export interface Seen {
  readonly status: number
  readonly body: any
}

export interface Reports {
  /** GET /transfers/{innerHash}, one per payment in order. */
  readonly transfers: ReadonlyArray<Seen>
  /** GET /batch/{jobId} of each job, with the payment of each item. */
  readonly jobs: ReadonlyArray<{ readonly name: string; readonly items: ReadonlyArray<Payment>; readonly seen: Seen }>
  /** POST /transfer answers the client got, first tries and retries. */
  readonly answers: ReadonlyArray<{ readonly name: string; readonly payment: Payment; readonly seen: Seen }>
  readonly payouts: Seen
  readonly batch: Seen
}

export interface Check {
  readonly kind: string
  readonly truthful: boolean
  /** What the report said against what the ledger holds, for the failure message. */
  readonly detail: string
}

/** What the ledger did with one payment: its one applied fee-bump, if any. */
interface Truth {
  readonly payment: Payment
  readonly landed: string | undefined
}

const short = (hash: unknown) => (typeof hash === "string" ? hash.slice(0, 10) : String(hash))
const said = (seen: Seen) => seen.status === 0 ? "no answer" : `${seen.status} ${JSON.stringify(seen.body)}`

/**
 * The ledger's own record of the drill's payments (every envelope sent reaches `rpc.transactions`, by hash): each
 * payment must have been sent as one transaction only and have landed exactly once, and nothing else was sent.
 */
export const ledgerRecord = (rpc: LoopbackRpc, payments: ReadonlyArray<Payment>) => {
  const issues: Array<string> = []
  const byInner = new Set(payments.map((p) => p.innerHash))
  for (const tx of rpc.transactions) {
    if (!byInner.has(tx.innerHash)) issues.push(`the ledger received ${short(tx.hash)}, which pays none of the drill's payments`)
  }
  const truths = payments.map((payment): Truth => {
    const sent = rpc.transactions.filter((tx) => tx.innerHash === payment.innerHash)
    const landed = sent.filter((tx) => tx.status === "SUCCESS")
    if (sent.length > 1) issues.push(`${payment.label}: sent to the network as ${sent.length} different transactions (${sent.map((t) => short(t.hash)).join(", ")})`)
    if (landed.length !== 1) {
      // What each send that reached the ledger was answered, to tell a refusal (TRY_AGAIN_LATER, txBadSeq) from silence.
      const answers = sent.flatMap((t) => t.sends.map((send) => `${send.status}${send.errorCode === undefined ? "" : ` ${send.errorCode}`}`))
      issues.push(
        `${payment.label}: landed ${landed.length} times (ledger statuses: ${sent.map((t) => t.status).join(", ") || "never sent"}; ` +
          `sends answered: ${answers.join(", ") || "none"})`
      )
    }
    return { payment, landed: landed.length === 1 ? landed[0]!.hash : undefined }
  })
  const sends = rpc.transactions.map((tx) => rpc.sendCount(tx.hash))
  return {
    truths,
    issues,
    landedOnce: truths.filter((t) => t.landed !== undefined).length,
    maxSends: Math.max(0, ...sends)
  }
}

/** A report of one payment's outcome: SUCCESS with the ledger's hash when it landed, anything but SUCCESS when not. */
const outcome = (kind: string, truth: Truth, status: unknown, hash: unknown, seen: string): Check => {
  const truthful = truth.landed === undefined ? status !== "SUCCESS" : status === "SUCCESS" && hash === truth.landed
  const ledger = truth.landed === undefined ? "it never landed" : `the ledger applied ${short(truth.landed)}`
  return { kind, truthful, detail: `${kind}, ${truth.payment.label}: ${seen}; ${ledger}` }
}

/** Every report the service gave, each compared with the ledger's record. */
export const compareReports = (record: ReturnType<typeof ledgerRecord>, reports: Reports): ReadonlyArray<Check> => {
  const truthOf = (payment: Payment) => record.truths.find((t) => t.payment.innerHash === payment.innerHash)!
  const checks: Array<Check> = []
  record.truths.forEach((truth, k) => {
    const seen = reports.transfers[k]!
    checks.push(outcome("GET /transfers/{hash}", truth, seen.body?.status, seen.body?.hash, said(seen)))
  })
  for (const job of reports.jobs) {
    const results: ReadonlyArray<{ i: number; hash: string; status: string; error?: string }> = job.seen.body?.results ?? []
    job.items.forEach((payment, i) => {
      const result = results.find((r) => r.i === i)
      const seen = result === undefined ? `no result (${said(job.seen)})` : `${result.status} ${short(result.hash)}${result.error === undefined ? "" : ` "${result.error}"`}`
      checks.push(outcome(job.name, truthOf(payment), result?.status, result?.hash, seen))
    })
  }
  for (const { name, payment, seen } of reports.answers) {
    const status = seen.status === 200 ? seen.body?.status : `HTTP ${seen.status}`
    checks.push(outcome(name, truthOf(payment), status, seen.body?.hash, said(seen)))
  }
  const payouts: ReadonlyArray<{ id: string; status: string; hash?: string; error?: string }> = Array.isArray(reports.payouts.body?.items) ? reports.payouts.body.items : []
  for (const truth of record.truths) {
    if (truth.payment.payoutId === undefined) continue
    const payout = payouts.find((p) => p.id === truth.payment.payoutId)
    const status = payout?.status === "settled" ? "SUCCESS" : payout?.status
    const seen = payout === undefined ? `missing (${said(reports.payouts)})` : `${payout.status} ${short(payout.hash)}${payout.error === undefined ? "" : ` "${payout.error}"`}`
    checks.push(outcome("payout", truth, status, payout?.hash, seen))
  }
  const batch = reports.batch.body ?? {}
  const linked = record.truths.filter((t) => t.payment.payoutId !== undefined)
  const settled = payouts.filter((p) => p.status === "settled").length
  const failed = payouts.filter((p) => p.status === "failed").length
  const landed = linked.filter((t) => t.landed !== undefined).length
  checks.push({
    kind: "batch counters",
    truthful: batch.settledCount === settled && batch.settledCount === landed,
    detail: `batch counters: settledCount ${batch.settledCount}; ${settled} payouts settled, ${landed} payouts landed on the ledger`
  })
  checks.push({
    kind: "batch counters",
    truthful: batch.failedCount === failed && batch.failedCount === linked.length - landed,
    detail: `batch counters: failedCount ${batch.failedCount}; ${failed} payouts failed, ${linked.length - landed} payouts not landed`
  })
  const allFinal = payouts.length === linked.length && payouts.every((p) => p.status === "settled" || p.status === "failed")
  checks.push({
    kind: "batch counters",
    truthful: (batch.status === "completed") === allFinal,
    detail: `batch status ${batch.status} with ${allFinal ? "every" : "not every"} payout final`
  })
  return checks
}

/** "kind a/b" for each kind of report, in order of first appearance. */
export const tally = (checks: ReadonlyArray<Check>) => {
  const kinds = [...new Set(checks.map((c) => c.kind))]
  return kinds.map((kind) => {
    const mine = checks.filter((c) => c.kind === kind)
    return `${kind} ${mine.filter((c) => c.truthful).length}/${mine.length}`
  }).join(", ")
}
