// "Pay batch" in the console, for a payroll of 20 (issue 31 §2, §4): the whole path a payer's browser takes — the
// sealed amounts opened, the confidential keys derived, the openings rebuilt from the archive, each payout proven in
// the prover's Web Worker, signed by the wallet, sent through the service and followed to the ledger — in Chromium,
// against the loopback token that verifies every proof. A benchmark, not a test: it prints figures.
//
//   npm run bench:console-pay     (BENCH_PAYOUTS=20, BENCH_LEDGER_MS=5000; vitest, for the suites' service and database)
//
// Figures: each payout's proof in the browser (the "proving" to "signing" marks PayBatch.ts sets), the time from one
// payout sent to the next, the whole run and the ledgers it spanned, and what the wallet was asked to confirm
// (Freighter's stand-in counts each signMessage and signTransaction, the requests a person approves one by one).
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { loadavg } from "node:os"
import { ensureConsoleBuilt, ensureProverBuilt, launchBrowser } from "../test/support/Browser.ts"
import { heading, personAt, signIn, statusOf } from "../test/support/ConsolePeople.ts"
import { payrollScene, provingApp, UNIT } from "../test/support/ProvingConsole.ts"
import { TestApp } from "../test/support/TestApp.ts"

const PAYOUTS = Number(process.env.BENCH_PAYOUTS ?? 20)
const LEDGER_MS = Number(process.env.BENCH_LEDGER_MS ?? 5000)

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!
}
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`

const program = Effect.gen(function*() {
  const app = yield* TestApp
  yield* Effect.promise(async () => {
    await ensureConsoleBuilt()
    await ensureProverBuilt()
  })
  const browser = yield* launchBrowser
  const people = Array.from({ length: PAYOUTS }, (_, i) => ({ name: `Contractor ${i + 1}`, amount: BigInt(100 + i) * UNIT }))
  const scene = yield* payrollScene(app, "Bench payroll", people)
  const person = yield* Effect.promise(() => personAt(browser, app, scene.payer.wallet))
  const page = person.page
  const result = yield* Effect.promise(async () => {
    await signIn(person, scene.path).catch(async (e: unknown) => {
      await page.screenshot({ path: "test/screenshots/bench-console-pay-stuck.png", fullPage: true })
      throw e
    })
    await heading(page, "Bench payroll")
    await page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
    await page.getByRole("button", { name: "Pay batch" }).waitFor({ timeout: 60_000 })
    const ledgerBefore = app.rpc.latestLedger
    const started = performance.now()
    await page.getByRole("button", { name: "Pay batch" }).click()
    await statusOf(page).getByText("completed").waitFor({ timeout: 30 * 60_000 })
    const wall = performance.now() - started
    const ledgers = app.rpc.latestLedger - ledgerBefore
    const marks = (await page.evaluate(`performance.getEntriesByType("mark").filter((m) => m.name.startsWith("payout:")).map((m) => [m.name, m.startTime])`)) as Array<[string, number]>
    return { wall, ledgers, marks }
  })
  const at = new Map(result.marks)
  const ids = scene.payouts.map((p) => p.id)
  const proofs = ids.map((id) => at.get(`payout:signing:${id}`)! - at.get(`payout:proving:${id}`)!).filter(Number.isFinite)
  const sent = ids.map((id) => at.get(`payout:sent:${id}`)!).filter(Number.isFinite).sort((a, b) => a - b)
  const gaps = sent.slice(1).map((t, i) => t - sent[i]!)
  console.log(`console pay: ${PAYOUTS} payouts, ledgers every ${LEDGER_MS} ms, load average ${loadavg()[0]!.toFixed(1)} (2 cores)`)
  console.log(`  proof in Chromium's worker      median ${s(median(proofs))}, min ${s(Math.min(...proofs))}, max ${s(Math.max(...proofs))}`)
  console.log(`  one payout sent to the next      median ${s(median(gaps))}`)
  console.log(`  the whole run (click to completed) ${s(result.wall)}, ${result.ledgers} ledgers`)
  console.log(`  wallet confirmations             ${person.confirmations.signMessage} signMessage + ${person.confirmations.signTransaction} signTransaction (1 of them the sign-in challenge)`)
  yield* Effect.promise(() => person.context.close())
})

it.live(`a payroll of ${PAYOUTS} paid from the console`, () => Effect.scoped(Effect.provide(program, provingApp(LEDGER_MS))))
