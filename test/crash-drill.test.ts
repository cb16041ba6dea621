import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Networks, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { call } from "./support/Client.ts"
import { postTransfer, retryTransfer } from "./support/CrashDrillClient.ts"
import { crashDrillPayroll } from "./support/CrashDrillPayroll.ts"
import { compareReports, ledgerRecord, type Payment, type Seen, tally } from "./support/CrashLedgerCheck.ts"
import type { LoopbackRpc } from "./support/LoopbackRpc.ts"
import { spawnService } from "./support/Spawned.ts"
import { loopbackRpc } from "./support/TestApp.ts"
import { backend, freshDatabase } from "./support/TestDatabase.ts"
import { innerTransfer } from "./support/Transfer.ts"

const LEDGER_MS = 1_000
/**
 * The reconciler backs a submission off while Stellar RPC fails for it, doubling up to WORKER_MAX_BACKOFF (30 s by
 * default): sends dropped for ~6 s could hold a transfer back past the drill's 30-second settling window. 4 s keeps
 * the drill about truth, not about the backoff's ceiling.
 */
const FAST = { RECONCILE_INTERVAL: "1 second", WORKER_MAX_BACKOFF: "4 seconds" }
const BATCH_ACCOUNTS = 3
const PER_ACCOUNT = 2
const TRANSFERS = 6
const LINKED_TRANSFERS = 3
/** The first round sends 9 transactions (each batch account's first item, every transfer): the kill leaves 3 unsent. */
const KILL_AT_SEND = 6
const SETTLE_WITHIN_MS = 30_000
/** Sends to Stellar RPC are dropped from the kill until this long after the restart. */
const OUTAGE_AFTER_RESTART_MS = 3_000
/** What the restarted instance must share with the killed one: its keys. */
const KEPT = ["JWT_SECRET", "SEP10_SIGNING_SECRET", "SPONSOR_SECRET", "FAUCET_SECRET"] as const

const innerHashOf = (signedXDR: string) =>
  Buffer.from(TransactionBuilder.fromXDR(signedXDR, Networks.TESTNET).hash()).toString("hex")

/**
 * Runs `kill` inside the RPC's handling of the `n`th sendTransaction, once the ledger has queued the transaction:
 * the service dies with that answer unread and the other transfers wherever they are.
 */
const killOnSend = (rpc: LoopbackRpc, n: number, kill: () => void) => {
  const send = rpc.methods.get("sendTransaction")!
  let sends = 0
  rpc.methods.set("sendTransaction", (params) => {
    const answer = send(params)
    if (++sends === n) kill()
    return answer
  })
  return () => sends
}

/**
 * Issue 14's drill: the real process, SIGKILLed mid batch run and mid transfers (with Stellar RPC dropping sends
 * for a while from that moment), restarted on the same database and keys; the client retries what it had no answer
 * for and re-posts the batch run. Every report is then compared with the loopback ledger's own record.
 */
describe(`crash drill (${backend})`, () => {
  it.live("SIGKILL mid batch run and mid transfers, restart, the client retries: every report agrees with the ledger", () =>
    Effect.gen(function*() {
      const began = Date.now()
      const rpc = yield* loopbackRpc(LEDGER_MS)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const first = yield* spawnService(rpc, { ...database, ...FAST })
      const payroll = yield* crashDrillPayroll(first.app, {
        wallets: BATCH_ACCOUNTS + TRANSFERS,
        payouts: BATCH_ACCOUNTS * PER_ACCOUNT + LINKED_TRANSFERS
      })

      const batchItems = payroll.wallets.slice(0, BATCH_ACCOUNTS).flatMap(({ keypair }, a) => {
        const base = rpc.account(keypair.publicKey())!.sequence
        return Array.from({ length: PER_ACCOUNT }, (_, k) => {
          const payout = payroll.payouts[a * PER_ACCOUNT + k]!
          const signedXDR = innerTransfer(first.app, keypair, { sequence: base + BigInt(k), to: payout.address, validFor: 120 })
          return { signedXDR, payoutId: payout.id }
        })
      })
      const batchPayments = batchItems.map((item, i): Payment => ({
        label: `batch item ${i} (payout)`,
        innerHash: innerHashOf(item.signedXDR),
        payoutId: item.payoutId
      }))
      const transfers = payroll.wallets.slice(BATCH_ACCOUNTS).map((wallet, t) => {
        const payout = t < LINKED_TRANSFERS ? payroll.payouts[BATCH_ACCOUNTS * PER_ACCOUNT + t]! : undefined
        const signedXDR = innerTransfer(first.app, wallet.keypair, { validFor: 120, ...(payout === undefined ? {} : { to: payout.address }) })
        const payment: Payment = {
          label: `transfer ${t}${payout === undefined ? "" : " (payout)"}`,
          innerHash: innerHashOf(signedXDR),
          ...(payout === undefined ? {} : { payoutId: payout.id })
        }
        const body = JSON.stringify({ signedXDR, ...(payout === undefined ? {} : { payoutId: payout.id }) })
        return { token: wallet.token, body, payment }
      })
      const payments = [...batchPayments, ...transfers.map((t) => t.payment)]

      // A crash seldom comes alone: from the kill on, sends to Stellar RPC are dropped for a while (see below).
      let killed = { at: 0, applied: 0, sent: 0 }
      const sends = killOnSend(rpc, KILL_AT_SEND, () => {
        first.child.kill("SIGKILL")
        rpc.setFault({ kind: "drop" }, { methods: ["sendTransaction"] })
        killed = { at: Date.now(), applied: rpc.transactions.filter((tx) => tx.status === "SUCCESS").length, sent: rpc.transactions.length }
      })
      const run = yield* call(first.app, "POST", "/batch", { token: payroll.token, json: { transactions: batchItems } })
      expect(run.status).toBe(200)
      const firstTries = transfers.map((t) => postTransfer(first.app.url, t.token, t.body, 60_000))
      const exit = yield* Effect.promise(() => first.exited).pipe(
        Effect.timeoutFail({
          duration: "30 seconds",
          onTimeout: () => new Error(`the service was never killed: ${sends()} sends\n${first.output()}`)
        }),
        Effect.orDie
      )
      expect(exit.signal).toBe("SIGKILL")
      const firstAnswers = yield* Effect.promise(() => Promise.all(firstTries))
      const lost = transfers.flatMap((_, k) => (firstAnswers[k]!.status === 0 ? [k] : []))
      // The drill means something only if the kill caught transfers in flight.
      expect(lost.length).toBeGreaterThan(0)

      // A new port behind the same public address (the sessions' issuer), as behind a load balancer: sessions stay valid.
      const kept = { ...Object.fromEntries(KEPT.map((key) => [key, first.app.config[key] ?? ""])), PUBLIC_URL: first.app.url }
      const second = yield* spawnService(rpc, { ...database, ...FAST, ...kept })
      const restarted = Date.now()
      const settleBy = restarted + SETTLE_WITHIN_MS
      const retries = lost.map((k) => retryTransfer(second.app.url, transfers[k]!.token, transfers[k]!.body, settleBy))
      const retryRun = yield* call(second.app, "POST", "/batch", { token: payroll.token, json: { transactions: batchItems } })
      expect(retryRun.status).toBe(200)

      const get = (path: string) =>
        call(second.app, "GET", path, { token: payroll.token }).pipe(Effect.map((r): Seen => ({ status: r.status, body: r.body })))
      // Items sent meanwhile found the network unreachable: recorded, answered ERROR (502 to POST /transfer), and sent
      // again by the reconciler once it is back.
      yield* Effect.sleep(Math.max(0, restarted + OUTAGE_AFTER_RESTART_MS - Date.now()))
      const duringOutage = yield* get(`/batch/${retryRun.body.jobId}`)
      rpc.setFault(null)
      const outageMs = Date.now() - killed.at
      const outageResults: ReadonlyArray<{ status: string }> = duringOutage.body?.results ?? []
      const outageTally = ["SUCCESS", "FAILED", "TIMEOUT", "ERROR", "REFUSED"]
        .map((status) => `${outageResults.filter((r) => r.status === status).length} ${status}`)
        .concat(`${batchItems.length - outageResults.length} running`)
        .join(", ")
      const retried = yield* Effect.promise(() => Promise.all(retries))
      const retryAnswers = retried.map((r) => r.seen)
      const read = Effect.all({
        transfers: Effect.forEach(payments, (p) => get(`/transfers/${p.innerHash}`), { concurrency: 4 }),
        original: get(`/batch/${run.body.jobId}`),
        retry: get(`/batch/${retryRun.body.jobId}`),
        payouts: get(`/batches/${payroll.batchId}/payouts?limit=100`),
        batch: get(`/batches/${payroll.batchId}`)
      })
      const final = (r: Effect.Effect.Success<typeof read>) =>
        r.transfers.every((t) => t.status === 200 && t.body.status !== "PENDING") &&
        [r.original, r.retry].every((job) => job.body?.results?.length === batchItems.length) &&
        rpc.transactions.every((tx) => tx.status !== "PENDING")
      let reports = yield* read
      while (!final(reports) && Date.now() < settleBy) {
        yield* Effect.sleep("250 millis")
        reports = yield* read
      }

      const record = ledgerRecord(rpc, payments)
      const checks = compareReports(record, {
        transfers: reports.transfers,
        jobs: [
          { name: "batch run", items: batchPayments, seen: reports.original },
          { name: "batch run re-posted", items: batchPayments, seen: reports.retry }
        ],
        answers: [
          ...transfers.flatMap((t, k) =>
            firstAnswers[k]!.status === 0 ? [] : [{ name: "POST /transfer before the kill", payment: t.payment, seen: firstAnswers[k]! }]
          ),
          ...lost.map((k, j) => ({ name: "POST /transfer retried", payment: transfers[k]!.payment, seen: retryAnswers[j]! }))
        ],
        payouts: reports.payouts,
        batch: reports.batch
      })
      const truthful = checks.filter((c) => c.truthful).length
      console.log(
        `[crash drill, ${backend}] SIGKILL at send ${KILL_AT_SEND} (${killed.sent} transactions sent, ${killed.applied} applied; ` +
          `${TRANSFERS - lost.length}/${TRANSFERS} POST /transfer answered), restarted in ${((restarted - killed.at) / 1000).toFixed(1)} s, ` +
          `sends dropped for ${(outageMs / 1000).toFixed(1)} s (re-posted run then: ${outageTally}), ` +
          `${lost.length} transfers retried in ${retried.reduce((n, r) => n + r.attempts, 0)} POSTs, ` +
          `${final(reports) ? "everything final" : "NOT everything final"} ` +
          `${((Date.now() - restarted) / 1000).toFixed(1)} s later; ledger: ${record.landedOnce}/${payments.length} ` +
          `payments landed once, ${record.issues.length} ledger issues, at most ${record.maxSends} sends of one envelope; ` +
          `items truthful ${truthful}/${checks.length} (${tally(checks)}); ${((Date.now() - began) / 1000).toFixed(1)} s in all`
      )
      if (process.env.CRASH_DRILL_LOGS !== undefined && record.issues.length > 0) {
        writeFileSync(`${process.env.CRASH_DRILL_LOGS}/first-${began}.log`, first.output())
        writeFileSync(`${process.env.CRASH_DRILL_LOGS}/second-${began}.log`, second.output())
      }
      expect([...record.issues, ...checks.filter((c) => !c.truthful).map((c) => c.detail)]).toEqual([])
      expect(truthful).toBe(checks.length)
    }).pipe(Effect.scoped), 90_000)
})
