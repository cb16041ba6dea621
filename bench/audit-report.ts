// The auditor's report (client/src/confidential/audit/) over 1,000 confidential transfers, in Node and in Chromium.
// A year of one paying wallet: its register, a deposit and a merge every 100 transfers, 1,000 payouts to 50
// contractors with their opened receipts, the ciphertexts built by the project's witness builders under the
// organization's auditor key, encoded as the 8af46e2c token emits them and as the archive serves them (base64 XDR).
//
//   node_modules/.bin/node bench/audit-report.ts          (BENCH_TRANSFERS=1000, BENCH_RUNS=3)
//
// Time: auditReport + reportCsv + reportJson (stringified), from the raw events to the three CSVs and the JSON text.
// Memory, Node: a child process loads the input, then builds the report; its peak RSS (getrusage) less its RSS once the
// input is loaded. Chromium: the page's bundle (esbuild, platform browser) is given the same input; the renderer
// processes' PSS is sampled from /proc every 100 ms (test/support/ProverBrowser.ts), at the start and at its peak.
import { StrKey } from "@stellar/stellar-sdk"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import * as Path from "node:path"
import { auditReport } from "../client/src/confidential/audit/AuditReport.ts"
import type { RawTokenEvent } from "../client/src/confidential/audit/AuditEvent.ts"
import { reportCsv } from "../client/src/confidential/audit/ReportCsv.ts"
import { reportJson } from "../client/src/confidential/audit/ReportJson.ts"
import { H, scalarMul } from "../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot } from "../client/src/confidential/crypto/KeyDerivation.ts"
import type { Opening } from "../client/src/confidential/crypto/Opening.ts"
import { transferWitness } from "../client/src/confidential/witness/Transfer.ts"
import { launchChromium, sampleMemory, startTrap } from "../test/support/ProverBrowser.ts"
import { cursorString, type PublishedEvent, tokenEvents } from "../test/support/LoopbackEvents.ts"

const ROOT = Path.resolve(import.meta.dirname, "..")
const TRANSFERS = Number(process.env["BENCH_TRANSFERS"] ?? "1000")
const RUNS = Number(process.env["BENCH_RUNS"] ?? "3")
const AUDITOR = 0x5e4d3c2b1a0987n

/** The report's input as JSON carries it: bigints as decimal strings. */
interface Input {
  readonly events: ReadonlyArray<RawTokenEvent>
  readonly auditorSecret: string
  readonly wallet: string
  readonly from: string
  readonly to: string
  readonly payouts: ReadonlyArray<{ payoutId: string; batchId: string; contractorId: string; contractorName: string; transactionHash: string }>
  readonly receipts: ReadonlyArray<{ payoutId: string; amount: string; ephemeral: string; sigma: string }>
}

const build = (input: Input) => {
  const report = auditReport({
    events: input.events,
    auditorSecret: BigInt(input.auditorSecret),
    wallets: [input.wallet],
    period: { from: new Date(input.from), to: new Date(input.to) },
    payouts: input.payouts,
    receipts: input.receipts.map((r) => ({ payoutId: r.payoutId, amount: BigInt(r.amount), ephemeral: BigInt(r.ephemeral), sigma: BigInt(r.sigma) }))
  })
  const csv = reportCsv(report)
  const json = JSON.stringify(reportJson(report))
  return { report, bytes: csv.operations.length + csv.contractors.length + csv.months.length + json.length }
}

/** The child process: load, then report; print RSS figures (kB) as JSON. */
if (process.argv[2] === "--child") {
  const input = JSON.parse(readFileSync(process.argv[3]!, "utf8")) as Input
  const loaded = process.memoryUsage().rss / 1024
  const started = performance.now()
  const { report } = build(input)
  const ms = performance.now() - started
  console.log(JSON.stringify({ loadedKb: loaded, peakKb: process.resourceUsage().maxRSS, ms, rows: report.rows.length, checks: report.checks }))
  process.exit(0)
}

const generate = (): Input => {
  const account = (n: number) => StrKey.encodeEd25519PublicKey(Buffer.alloc(32, n))
  const contract = StrKey.encodeContract(Buffer.alloc(32, 0x42))
  const wallet = account(1)
  const keys = keysFromRawRoot(new Uint8Array(32).fill(1), { contract, account: wallet })
  const contractors = Array.from({ length: 50 }, (_, i) => keysFromRawRoot(new Uint8Array(32).fill(100 + i), { contract, account: account(100 + i) }))
  const kAud = scalarMul(AUDITOR, H)
  const otherAuditor = scalarMul(0xa0d17n, H)
  const start = Date.UTC(2026, 0, 1)
  const total = 1 + TRANSFERS + 2 * Math.ceil(TRANSFERS / 100)
  const step = Math.floor((365 * 86_400_000) / total)
  const events: Array<RawTokenEvent> = []
  const payouts: Array<Input["payouts"][number]> = []
  const receipts: Array<Input["receipts"][number]> = []
  const emit = (published: PublishedEvent) => {
    const ledger = events.length + 1
    events.push({
      id: cursorString({ ledger, tx: 1, op: 0, event: 0 }), ledger, ledgerClosedAt: new Date(start + ledger * step).toISOString(),
      txHash: ledger.toString(16).padStart(64, "0"), topics: published.topics.map((t) => t.toXDR("base64")), value: published.data.toXDR("base64")
    })
    return events[events.length - 1]!
  }
  emit(tokenEvents.register(wallet, 1))
  let spendable: Opening = { value: 0n, blinding: 0n }
  for (let i = 0; i < TRANSFERS; i++) {
    if (i % 100 === 0) {
      emit(tokenEvents.deposit(account(2), wallet, 100_000_0000000n))
      emit(tokenEvents.merge(wallet))
      spendable = { value: spendable.value + 100_000_0000000n, blinding: spendable.blinding }
    }
    const c = i % contractors.length
    const amount = 500_0000000n + BigInt(i) * 1_234567n
    const w = transferWitness({
      keys, spendable, recipientViewingKey: contractors[c]!.viewingPublicKey, recipientAuditorKey: otherAuditor, senderAuditorKey: kAud, amount
    })
    spendable = w.newSpendable
    const event = emit(tokenEvents.transfer(wallet, account(100 + c), w.payload))
    const payoutId = `payout-${i}`
    payouts.push({ payoutId, batchId: `batch-${Math.floor(i / 20)}`, contractorId: `contractor-${c}`, contractorName: `Contractor ${c}`, transactionHash: event.txHash })
    receipts.push({ payoutId, amount: amount.toString(), ephemeral: w.receipt.ephemeral.toString(), sigma: w.receipt.sigma.toString() })
  }
  return { events, auditorSecret: AUDITOR.toString(), wallet, from: new Date(start).toISOString(), to: new Date(start + 366 * 86_400_000).toISOString(), payouts, receipts }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const round = (ms: number) => Math.round(ms)

console.log(`audit report over ${TRANSFERS} transfers; ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(1)}, Node ${process.version}`)
const generating = performance.now()
const input = generate()
console.log(`generated ${input.events.length} events in ${round(performance.now() - generating)} ms (witness builders)`)
const dir = mkdtempSync(Path.join(tmpdir(), "audit-bench-"))
const inputFile = Path.join(dir, "input.json")
writeFileSync(inputFile, JSON.stringify(input))

try {
  const nodeTimes: Array<number> = []
  const cpuTimes: Array<number> = []
  let last: ReturnType<typeof build> | undefined
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    const cpu = process.cpuUsage()
    last = build(input)
    const used = process.cpuUsage(cpu)
    nodeTimes.push(performance.now() - started)
    cpuTimes.push((used.user + used.system) / 1000)
  }
  // Wall time follows the machine's load; CPU time is what the report itself costs.
  console.log(`Node, in process: ${nodeTimes.map(round).join(", ")} ms wall (median ${round(median(nodeTimes))}), ` +
    `${cpuTimes.map(round).join(", ")} ms CPU (median ${round(median(cpuTimes))}); ${last!.report.rows.length} rows, ` +
    `${Math.round(last!.bytes / 1024)} KiB of CSV + JSON; checks ${JSON.stringify(last!.report.checks)}`)
  const child = JSON.parse(execFileSync(process.execPath, [import.meta.filename, "--child", inputFile], { encoding: "utf8" })) as {
    loadedKb: number; peakKb: number; ms: number
  }
  console.log(`Node, fresh process: ${round(child.ms)} ms; RSS ${Math.round(child.loadedKb / 1024)} MiB with the input loaded, ` +
    `peak ${Math.round(child.peakKb / 1024)} MiB (+${Math.round((child.peakKb - child.loadedKb) / 1024)} MiB for the report)`)

  const esbuild = await import("esbuild")
  const bundle = await esbuild.build({
    stdin: {
      contents: `import { auditReport } from "./client/src/confidential/audit/AuditReport.ts"
import { reportCsv } from "./client/src/confidential/audit/ReportCsv.ts"
import { reportJson } from "./client/src/confidential/audit/ReportJson.ts"
globalThis.auditBench = { auditReport, reportCsv, reportJson }`,
      resolveDir: ROOT,
      loader: "ts"
    },
    bundle: true, format: "iife", platform: "browser", target: "es2022", minify: true, write: false, logLevel: "warning"
  })
  const script = bundle.outputFiles[0]!.text
  console.log(`Chromium bundle: ${Math.round(script.length / 1024)} KiB minified`)
  const trap = await startTrap()
  const browser = await launchChromium(trap)
  try {
    const page = await browser.context.newPage()
    const requested: Array<string> = []
    page.on("request", (request) => requested.push(request.url()))
    await page.setContent("<!doctype html><html><body>audit</body></html>")
    await page.addScriptTag({ content: script })
    await page.evaluate((text) => { (globalThis as unknown as { input: Input }).input = JSON.parse(text) as Input }, readFileSync(inputFile, "utf8"))
    const memory = sampleMemory(browser.userDataDir)
    const browserTimes: Array<number> = []
    for (let run = 0; run < RUNS; run++) {
      // The page's build() is the one above, given the bundle's functions (the evaluated function cannot close over them).
      browserTimes.push(await page.evaluate(() => {
        type Api = { auditReport: typeof auditReport; reportCsv: typeof reportCsv; reportJson: typeof reportJson }
        const g = globalThis as unknown as { auditBench: Api; input: Input }
        const { auditReport: report, reportCsv: csv, reportJson: json } = g.auditBench
        const i = g.input
        const started = performance.now()
        const r = report({
          events: i.events, auditorSecret: BigInt(i.auditorSecret), wallets: [i.wallet],
          period: { from: new Date(i.from), to: new Date(i.to) }, payouts: i.payouts,
          receipts: i.receipts.map((x) => ({ payoutId: x.payoutId, amount: BigInt(x.amount), ephemeral: BigInt(x.ephemeral), sigma: BigInt(x.sigma) }))
        })
        csv(r)
        JSON.stringify(json(r))
        if (r.checks.breaks !== 0 || r.checks.receiptsMatch !== i.receipts.length) throw new Error(`unexpected checks ${JSON.stringify(r.checks)}`)
        return performance.now() - started
      }))
    }
    const m = memory.stop()
    const version = await page.evaluate(() => /Chrome\/([\d.]+)/.exec(navigator.userAgent)?.[1] ?? "?")
    console.log(`Chromium ${version}: ${browserTimes.map(round).join(", ")} ms (median ${round(median(browserTimes))}); renderer PSS ` +
      `${m.rendererStartMb} MiB with the input loaded, peak ${m.rendererPeakMb} MiB; all processes peak ${m.totalPeakMb} MiB`)
    // Chromium's own updater calls reach the trap whatever the page does; the page itself must ask for nothing.
    if (requested.length > 0) throw new Error(`the page reached out: ${requested.join(", ")}`)
  } finally {
    await browser.close()
    await trap.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
