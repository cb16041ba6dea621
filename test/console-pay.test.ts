// "Pay batch" in Chromium (issue 31 §2, §4): against the loopback token that verifies real proofs (bb.js, the test
// CRS), the payer's browser opens the batch's sealed amounts, derives its confidential keys from Freighter's
// signMessage, rebuilds its openings from the service's archive, proves each payout in the prover's Web Worker, has
// Freighter sign it and sends it with its payoutId. The page is reloaded after the first payout is sent: the rest is
// paid once, nobody twice. Each contractor's own wallet (Node) then decrypts exactly the approved amount, once.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { Browser } from "playwright-core"
import { consoleAndProverBuilt, launchBrowser } from "./support/Browser.ts"
import { syncUntil } from "./support/ConfidentialProving.ts"
import { checkAgainstChain, payUntilCompleted, receivedBy, unlockAmounts } from "./support/ConsolePay.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { must } from "./support/Members.ts"
import { payrollScene, ProvingApp, UNIT } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp } from "./support/TestApp.ts"

class Chromium extends Context.Tag("test/pay/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleAndProverBuilt, launchBrowser))

const AMOUNTS = [1250n * UNIT + 5_000_000n, 980n * UNIT, 1000n * UNIT + 2_500_000n]

layer(Layer.mergeAll(ProvingApp, ChromiumLive), { timeout: "600 seconds", excludeTestServices: true })("Pay batch in the console", (it) => {
  it.effect("the payer pays an approved batch with proofs made in the browser; a reload in the middle pays nobody twice", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const { owner, payer, contractors, batch, payouts, amountOf } = yield* payrollScene(app, "January 2027", [
        { name: "Ada Lovelace", amount: AMOUNTS[0]! },
        { name: "Grace Hopper", amount: AMOUNTS[1]! },
        { name: "Katherine Johnson", amount: AMOUNTS[2]! }
      ])
      const path = `/app/batches/${batch.id}`
      const person = yield* Effect.promise(() => personAt(browser, app, payer.wallet))
      const page = person.page
      const started = Date.now()
      yield* Effect.promise(async () => {
        await signIn(person, path)
        await heading(page, "January 2027")
        await unlockAmounts(page, "3,230.75")
        await page.getByText("3 payouts to pay, 3,230.75 USDC in all.", { exact: false }).waitFor()
        await inspect(person, "batch-pay-ready")
        // One signature unlocks the amounts (it reproduces the sealing key published before, as the registered keys let
        // one signature derive the confidential keys below); two are asked only the first time.
        expect(person.confirmations).toEqual({ signMessage: 1, signTransaction: 1 })
        await page.getByRole("button", { name: "Pay batch" }).click()
        await page.getByText(/1 of 3 sent/).waitFor({ timeout: 120_000 }).catch(async (e: unknown) => {
          await page.screenshot({ path: "test/screenshots/batch-pay-stuck.png", fullPage: true })
          throw e
        })
        // The keys live in this tab only: while it pays, the page says so and leaving it asks first.
        await page.getByText("Paying: keep this tab open").waitFor()
        await inspect(person, "batch-pay-paying")
        // The tab is reloaded mid-payroll (the browser's prompt accepted): the key and the run are gone; the service's
        // payout states are not, and the page says why Freighter is asked again.
        const prompts: Array<string> = []
        page.once("dialog", (dialog) => {
          prompts.push(dialog.type())
          void dialog.accept()
        })
        await page.reload()
        expect(prompts).toEqual(["beforeunload"])
        await heading(page, "January 2027")
        const stopped = page.getByRole("region", { name: "Pay", exact: true })
        await stopped.getByText("A reload stopped paying").waitFor()
        const left = await stopped.getByText(/unlock again to continue paying the \d payouts? left/).textContent()
        expect(left).toMatch(/^The keys stay only in the tab: unlock again to continue paying the [12] payouts? left\./)
        await inspect(person, "batch-pay-reloaded")
        await page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
        await payUntilCompleted(page, /^Pay \d remaining$/)
        // No prompt once the run is over: a reload leaves at once.
        expect(await page.evaluate(`(() => {
          const event = new Event("beforeunload", { cancelable: true })
          window.dispatchEvent(event)
          return event.defaultPrevented
        })()`)).toBe(false)
        // Sign-in, and each of two sessions: the amounts (1 signature) and the keys (1); then one signature a payout —
        // a fourth when the reload came between a payout's signature and its submission (it is prepared again).
        expect(person.confirmations.signMessage).toBe(4)
        expect(person.confirmations.signTransaction - 1).toBeGreaterThanOrEqual(3)
        expect(person.confirmations.signTransaction - 1).toBeLessThanOrEqual(4)
        console.log(`console pay: wallet confirmations ${JSON.stringify(person.confirmations)} (1 sign-in challenge)`)
        // The books against the chain: each receipt opened in this browser, its transfer's ciphertext recomputed.
        // (The archive trails the ledger: checked again until it has every transfer.)
        expect(await checkAgainstChain(page, 3)).toBe("3 of 3 sent payouts paid as approved.")
        expect(await page.getByRole("cell", { name: "paid as approved" }).count()).toBe(3)
        // The loopback's network is a standalone one, which no explorer shows: each transaction is its hash, not a link.
        const sent = page.getByRole("region", { name: "Payouts", exact: true })
        expect(await sent.getByRole("link").count()).toBe(0)
        expect(await sent.getByRole("button", { name: "Copy hash" }).count()).toBe(3)
        const codes = await sent.locator("td[data-label='Transaction'] code").all()
        const shown = await Promise.all(codes.map(async (c) => [await c.textContent(), (await c.getAttribute("title")) ?? ""] as const))
        expect(shown.map(([text, hash]) => /^[0-9a-f]{64}$/.test(hash) && text === `${hash.slice(0, 6)}…${hash.slice(-6)}`)).toEqual([true, true, true])
        await inspect(person, "batch-pay-done")
        expect(person.problems).toEqual([])
      })
      console.log(`console pay: 3 payouts proven in Chromium and paid, with a reload, in ${((Date.now() - started) / 1000).toFixed(1)} s`)

      // One sealed receipt a payout, opaque to the service.
      const receipts = (yield* must(app, "GET", `/batches/${batch.id}/sealed-receipts`, owner.token)).items as Array<{ payoutId: string }>
      expect(receipts.map((r) => r.payoutId).sort()).toEqual(payouts.map((p) => p.id).sort())
      // Every payout settled, each contractor paid once, the approved amount.
      const after = (yield* must(app, "GET", `/batches/${batch.id}/payouts`, owner.token)).items as Array<{ status: string }>
      expect(after.map((p) => p.status)).toEqual(["settled", "settled", "settled"])
      for (const c of contractors) {
        yield* syncUntil(app.url, CONFIDENTIAL_TOKEN, c.wallet, (b) => b.receiving > 0n)
        const received = yield* receivedBy(app, c.wallet)
        expect([c.name, received.map((r) => r.amount)]).toEqual([c.name, [amountOf(c.id)]])
      }
      yield* Effect.promise(() => person.context.close())
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped), 600_000)
})
