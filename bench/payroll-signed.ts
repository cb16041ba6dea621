// A long payroll from one account (issue 16 §2): 1,000 transfers from one employer wallet on fast ledgers, each with
// time bounds far shorter than the payroll lasts. Two ways:
//   before: signed in advance and posted as batch runs (runPayroll with signed envelopes): the transfers signed for
//           sequence numbers the account reaches only after their time bounds run out can never land;
//   after:  runPayroll with a signer: prepared (POST /transfers/prepare), signed and submitted just in time.
//
//   node_modules/.bin/node bench/payroll-signed.ts        (BENCH_SIGNED_TRANSFERS, BENCH_SIGNED_LEDGER_MS,
//                                                          BENCH_SIGNED_VALID_SECONDS, BENCH_SIGNED_BEFORE=0 to skip
//                                                          the signed-in-advance run, BENCH_DB=embedded|postgres)
//
// This process is the driver: it holds the loopback RPC and runs the typed client; the service (bench/service.ts)
// runs in a child process with a fresh database.
import { FetchHttpClient } from "@effect/platform"
import { Keypair, StrKey, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { Agent } from "node:http"
import { type PayrollItem, type PayrollTransfer, runPayroll } from "../client/src/PayrollClient.ts"
import { transferData } from "../test/support/ConfidentialData.ts"
import { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { addWallet, ascending, createOrg, deployToken, envNumber, fixed, freshDatabase, percentile, sep10SignIn, serviceEnv, startChild, table, transferXdr } from "./support.ts"

const settings = {
  transfers: envNumber("BENCH_SIGNED_TRANSFERS", 1000),
  ledgerMs: envNumber("BENCH_SIGNED_LEDGER_MS", 100),
  validFor: envNumber("BENCH_SIGNED_VALID_SECONDS", 30),
  before: envNumber("BENCH_SIGNED_BEFORE", 1) > 0,
  db: process.env.BENCH_DB ?? "embedded",
  serverUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
}
const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 9))
const ISSUER = "http://payroll.bench"

const rpc = await LoopbackRpc.start({ ledgerIntervalMs: settings.ledgerMs })
deployToken(rpc, CONTRACT)
const db = await freshDatabase("signed", settings.db === "postgres" ? settings.serverUrl : undefined)
const sponsor = Keypair.random()
rpc.setAccount({ id: sponsor.publicKey() })
const service = await startChild("service", "./service.ts", serviceEnv(rpc, db, { sponsor, contract: CONTRACT, issuer: ISSUER }, {
  // One account sends the whole payroll: the sponsor's per-account quota (100 a day by default) must allow it.
  SPONSOR_QUOTA: String(settings.transfers * 3),
  RECONCILE_INTERVAL: "1 second",
  TRANSFER_POLL_MARGIN: "2 seconds"
}))

const recipients = Array.from({ length: settings.transfers }, () => Keypair.random().publicKey())
for (const to of recipients) rpc.registerConfidential(CONTRACT, to)
const data = Buffer.from(transferData()).toString("base64")

/** A new employer (wallet, organization, session). */
const employer = async () => {
  const agent = new Agent({ keepAlive: true })
  const wallet = Keypair.random()
  addWallet(rpc, CONTRACT, wallet)
  const token = await sep10SignIn(agent, service.url, wallet)
  await createOrg(agent, service.url, token, "Bench Long Payroll Co")
  agent.destroy()
  return { wallet, token }
}

/** What the ledger did with the account's transactions: landed, and the ledgers they span. */
const ledgerOf = (source: string) => {
  const mine = rpc.transactions.filter((t) => t.source === source)
  const landed = mine.filter((t) => t.status === "SUCCESS")
  const ledgers = landed.map((t) => t.ledger!).sort((a, b) => a - b)
  return { landed: landed.length, first: ledgers[0] ?? 0, last: ledgers.at(-1) ?? 0 }
}

const tally = (statuses: ReadonlyArray<string>) => {
  const counts = new Map<string, number>()
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1)
  return [...counts.entries()].map(([s, n]) => `${n} ${s}`).join(", ")
}

const rows: Array<Array<string>> = []
try {
  if (settings.before) {
    const { wallet, token } = await employer()
    const base = rpc.account(wallet.publicKey())!.sequence
    const items: Array<PayrollItem> = recipients.map((_, k) => ({
      signedXDR: transferXdr(wallet, base + BigInt(k), CONTRACT, undefined, settings.validFor)
    }))
    const started = performance.now()
    const results = await Effect.runPromise(runPayroll(service.url, token, items, { pollEvery: "500 millis" }).pipe(Effect.provide(FetchHttpClient.layer)))
    const seconds = (performance.now() - started) / 1000
    const ledger = ledgerOf(wallet.publicKey())
    rows.push([
      "signed in advance, batch runs", fixed(seconds, 1), tally(results.map((r) => r.status)), String(ledger.landed),
      String(ledger.last - ledger.first + 1), "-"
    ])
  }

  const { wallet, token } = await employer()
  const transfers: Array<PayrollTransfer> = recipients.map((to) => ({ to, data }))
  const sign = (prepared: { xdr: string; networkPassphrase: string }) => {
    const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
    tx.sign(wallet)
    return tx.toXDR()
  }
  const doneAt: Array<number> = []
  rpc.resetCalls()
  const started = performance.now()
  const results = await Effect.runPromise(
    runPayroll(service.url, token, transfers, {
      sign,
      validFor: settings.validFor,
      pollEvery: "200 millis",
      onProgress: (p) => p.itemsDone > doneAt.length && doneAt.push(performance.now())
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
  const seconds = (performance.now() - started) / 1000
  const ledger = ledgerOf(wallet.publicKey())
  const each = ascending(doneAt.map((t, k) => t - (k === 0 ? started : doneAt[k - 1]!)))
  const calls = new Map<string, number>()
  for (const { method } of rpc.calls) calls.set(method, (calls.get(method) ?? 0) + 1)
  rows.push([
    "signed just in time (runPayroll with a signer)", fixed(seconds, 1), tally(results.map((r) => r.status)), String(ledger.landed),
    String(ledger.last - ledger.first + 1), `${fixed(percentile(each, 50))} / ${fixed(percentile(each, 95))}`
  ])

  console.log(`${settings.transfers} confidential transfers (real-size TransferData, ${data.length} characters of base64) from ONE ` +
    `employer wallet; loopback RPC closing a ledger every ${settings.ledgerMs} ms; each transaction valid ${settings.validFor} s ` +
    `(the payroll lasts longer); the service in a child process on ${settings.db === "postgres" ? "the PostgreSQL server" : "its embedded PostgreSQL"}`)
  console.log("")
  console.log(table(["payroll", "seconds", "results", "landed", "ledgers spanned", "ms per transfer p50 / p95"], rows))
  console.log("")
  console.log(`just in time: RPC calls per transfer ${[...calls.entries()].map(([m, n]) => `${m} ${fixed(n / settings.transfers, 2)}`).join(", ")}`)
} finally {
  await service.stop()
  await db.drop()
  await rpc.close()
}
