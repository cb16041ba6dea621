// "Pay batch" in Chromium (issue 31 §2, §4): against the loopback token that verifies real proofs (bb.js, the test
// CRS), the payer's browser opens the batch's sealed amounts, derives its confidential keys from Freighter's
// signMessage, rebuilds its openings from the service's archive, proves each payout in the prover's Web Worker, has
// Freighter sign it and sends it with its payoutId. The page is reloaded after the first payout is sent: the rest is
// paid once, nobody twice. Each contractor's own wallet (Node) then decrypts exactly the approved amount, once.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer, Schedule } from "effect"
import type { Browser } from "playwright-core"
import { prepareCall } from "../client/src/confidential/chain/Calls.ts"
import type { ConfidentialWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { fetchAccountEvents } from "../client/src/confidential/state/ArchiveEvents.ts"
import { sealAmounts } from "../client/src/sealing/SealedAmounts.ts"
import { buildProver } from "../scripts/ProverBundle.ts"
import { ensureConsoleBuilt, launchBrowser } from "./support/Browser.ts"
import { sequenceOf, signAndSend, syncUntil } from "./support/ConfidentialProving.ts"
import { heading, inspect, personAt, signIn, statusOf } from "./support/ConsolePeople.ts"
import { joinAs, must } from "./support/Members.ts"
import { ProvingApp, publishSealingKey, registeredWallet } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

class Chromium extends Context.Tag("test/pay/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(Effect.promise(async () => {
  ensureConsoleBuilt()
  await buildProver()
}), launchBrowser))

const UNIT = 10_000_000n
const AMOUNTS = [1250n * UNIT + 5_000_000n, 980n * UNIT, 1000n * UNIT + 2_500_000n]

const receivedBy = (app: TestAppShape, wallet: ConfidentialWallet) =>
  Effect.map(fetchAccountEvents(app.url, CONFIDENTIAL_TOKEN, wallet.account, undefined), (history) => wallet.received(history.events))

layer(Layer.mergeAll(ProvingApp, ChromiumLive), { timeout: "300 seconds", excludeTestServices: true })("Pay batch in the console", (it) => {
  it.effect("the payer pays an approved batch with proofs made in the browser; a reload in the middle pays nobody twice", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const owner = yield* walletEmployer(app, "Paying Co")
      yield* must(app, "PATCH", "/org/settings", owner.token, { approvalsRequired: 1 })
      const me = yield* must(app, "GET", "/me", owner.token)
      const orgId = me.employer.orgId as string
      const payer = yield* joinAs(app, owner, "payer")
      const approver = yield* joinAs(app, owner, "approver")

      // The payer's confidential account: registered, with 5,000 deposited and merged (in Node: the Treasury page is
      // another step).
      const paying = yield* registeredWallet(app, payer.wallet)
      tokenOf(app).mintUnderlying(payer.wallet.publicKey(), 5000n * UNIT)
      for (const call of [
        { fn: "deposit", from: payer.wallet.publicKey(), to: payer.wallet.publicKey(), amount: 5000n * UNIT } as const,
        { fn: "merge", account: payer.wallet.publicKey() } as const
      ]) {
        const tx = yield* Effect.promise(() => prepareCall(paying.server, paying.deployment, { account: payer.wallet.publicKey(), sequence: sequenceOf(app.rpc, payer.wallet.publicKey()) }, call))
        expect(yield* signAndSend(paying.server, tx, payer.wallet)).toBe("SUCCESS")
      }

      // Three contractors registered with their own keys, in the directory (ready once the archive sees them).
      const names = ["Ada Lovelace", "Grace Hopper", "Katherine Johnson"]
      const contractors: Array<{ name: string; key: Keypair; wallet: ConfidentialWallet; id: string }> = []
      for (const name of names) {
        const key = Keypair.random()
        const { wallet } = yield* registeredWallet(app, key)
        const created = yield* must(app, "POST", "/contractors", owner.token, { name, address: key.publicKey() })
        contractors.push({ name, key, wallet, id: created.id as string })
      }
      for (const c of contractors) {
        yield* Effect.repeat(must(app, "POST", `/contractors/${c.id}/check`, owner.token), {
          schedule: Schedule.spaced("200 millis"),
          until: (answer) => answer.status === "ready"
        }).pipe(Effect.timeout("30 seconds"), Effect.orDie)
      }

      // The owner prepares the batch and seals its amounts for every reader (their keys derived from their wallets);
      // the approver approves that digest.
      const readers = [
        yield* publishSealingKey(app, orgId, owner),
        yield* publishSealingKey(app, orgId, payer),
        yield* publishSealingKey(app, orgId, approver)
      ]
      const batch = yield* must(app, "POST", "/batches", owner.token, { name: "January 2027" })
      const payouts = (yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: contractors.map((c) => c.id) })) as Array<{ id: string; contractorId: string }>
      const amountOf = (contractorId: string) => AMOUNTS[contractors.findIndex((c) => c.id === contractorId)]!
      const envelope = yield* Effect.promise(() => sealAmounts(batch.id, payouts.map((p) => ({ payoutId: p.id, amount: amountOf(p.contractorId) })), readers))
      const sealed = yield* must(app, "PUT", `/batches/${batch.id}/sealed-amounts`, owner.token, envelope)
      yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
      yield* must(app, "POST", `/batches/${batch.id}/approve`, approver.token, { sealedAmountsDigest: sealed.digest })

      const path = `/app/batches/${batch.id}`
      const person = yield* Effect.promise(() => personAt(browser, app, payer.wallet))
      const page = person.page
      const started = Date.now()
      yield* Effect.promise(async () => {
        await signIn(person, path)
        await heading(page, "January 2027")
        await page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
        await page.getByText("Total: 3,230.75 USDC").waitFor()
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
        await inspect(person, "batch-pay-paying")
        // The tab is reloaded mid-payroll: the key and the run are gone; the service's payout states are not.
        await page.reload()
        await heading(page, "January 2027")
        await page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
        const remaining = page.getByRole("button", { name: /^Pay \d remaining$/ })
        await remaining.waitFor({ timeout: 60_000 })
        await remaining.click({ timeout: 60_000 })
        await statusOf(page).getByText("completed").waitFor({ timeout: 180_000 })
        // Sign-in, and each of two sessions: the amounts (1 signature) and the keys (1); then one signature a payout —
        // a fourth when the reload came between a payout's signature and its submission (it is prepared again).
        expect(person.confirmations.signMessage).toBe(4)
        expect(person.confirmations.signTransaction - 1).toBeGreaterThanOrEqual(3)
        expect(person.confirmations.signTransaction - 1).toBeLessThanOrEqual(4)
        console.log(`console pay: wallet confirmations ${JSON.stringify(person.confirmations)} (1 sign-in challenge)`)
        // The books against the chain: each receipt opened in this browser, its transfer's ciphertext recomputed.
        // (The archive trails the ledger: checked again until it has every transfer.)
        const verdict = page.getByText(/\d of 3 sent payouts paid as approved\./)
        for (let attempt = 0; attempt < 20; attempt++) {
          await page.getByRole("button", { name: "Check against the chain" }).click()
          await verdict.waitFor({ timeout: 60_000 })
          if ((await verdict.textContent())?.startsWith("3 of 3") === true) break
          await page.waitForTimeout(500)
        }
        expect(await verdict.textContent()).toBe("3 of 3 sent payouts paid as approved.")
        expect(await page.getByRole("cell", { name: "paid as approved" }).count()).toBe(3)
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
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped), 300_000)
})
