// Selective disclosure from the employer's side in Chromium (issue 37, D-sender and its aggregate), on the loopback
// token that verifies every proof with OZ's published keys: an organization whose owner's wallet pays pays Ada in two
// batches and Lin — in its directory, never in a batch — once straight to the network. A bank, on /app/verify in a
// browser of its own with no account, asks the organization for one of Ada's payouts (the link) and for its total paid
// to Ada over a period (the file), and asks Lin for what the organization paid them. The owner, signed in with Freighter,
// opens each request from the batch page's "Disclose this payout", finds the payouts it asks about selected (Lin's not),
// proves in the prover's worker and downloads the bundle; Lin, with no payroll payout, answers from their payouts page.
// The bank's page verifies each bundle against the chain and shows exactly that payout, Ada's total, and Lin's payout.
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer, Schedule } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import type { Browser, Page } from "playwright-core"
import { formatAmount } from "../console/src/lib/Amount.ts"
import { axeViolations, consoleAndProverBuilt, launchBrowser, screenshots } from "./support/Browser.ts"
import { downloaded, issuedRequest, verifiedOnPage } from "./support/ConsoleDisclosure.ts"
import { heading, inspect, type Person, personAt, signIn } from "./support/ConsolePeople.ts"
import { transfersOf } from "./support/DisclosureScene.ts"
import { fundedPayer, payPayouts, transferDirectly } from "./support/FundedPayer.ts"
import { must } from "./support/Members.ts"
import { ProvingApp, registeredWallet, UNIT } from "./support/ProvingConsole.ts"
import { TestApp, type TestAppShape } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"

class Chromium extends Context.Tag("test/disclose-sender/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleAndProverBuilt, launchBrowser))

const usdc = (whole: bigint, cents = 0n) => whole * UNIT + cents * 100_000n
const TO_ADA = [["March payroll", usdc(2400n, 40n)], ["April payroll", usdc(2650n)]] as const
const TO_LIN = usdc(730n, 15n)
const short = (text: string) => `${text.slice(0, 6)}…${text.slice(-6)}`
const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** A contractor in the owner's directory, their wallet registered with the token and the directory's check passed. */
const readyContractor = (app: TestAppShape, token: string, name: string, key: Keypair) =>
  Effect.gen(function*() {
    yield* registeredWallet(app, key)
    const added = yield* must(app, "POST", "/contractors", token, { name, address: key.publicKey() })
    yield* Effect.repeat(must(app, "POST", `/contractors/${added.id}/check`, token), {
      schedule: Schedule.spaced("200 millis"),
      until: (answer) => answer.status === "ready"
    }).pipe(Effect.timeout("60 seconds"), Effect.orDie)
    return added.id as string
  })

/** The holder's checklist on `page`: how many payouts it lists, and the transactions of those selected. */
const selection = async (page: Page, hashes: Record<string, string>) => {
  const group = page.getByRole("group", { name: "Payouts the disclosure covers" })
  const selected: Array<string> = []
  for (const [name, hash] of Object.entries(hashes)) {
    if (await group.getByRole("checkbox", { name: new RegExp(`transaction ${short(hash)}`) }).isChecked()) selected.push(name)
  }
  return { listed: await group.getByRole("checkbox").count(), selected }
}

/** The bundle the holder proves in the page's worker for the request it has open, saved at `file`. */
const prove = async (person: Person, file: string) => {
  const page = person.page
  await downloaded(page, page.getByRole("button", { name: "Prove and download the bundle" }), file, 240_000).catch(async (e: unknown) => {
    await page.screenshot({ path: "test/screenshots/disclose-sender-stuck.png", fullPage: true })
    throw e
  })
  await page.getByRole("status").filter({ hasText: "The bundle is downloaded" }).waitFor()
}

layer(Layer.mergeAll(ProvingApp, ChromiumLive), { timeout: "300 seconds", excludeTestServices: true })("Disclosure by the payer from the console to /app/verify", (it) => {
  it.effect("the paying owner answers a one-payout and a total request from the batch page, a contractor paid outside the payroll answers from theirs; the bank sees exactly those values", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const dir = mkdtempSync(Path.join(tmpdir(), "console-disclose-sender-"))

      // The organization's owner pays from their own wallet: Ada in two batches, Lin straight to RPC.
      const owner = yield* walletEmployer(app, "Northwind Studio")
      const payer = yield* fundedPayer(app, owner.wallet, usdc(8000n))
      const [adaKey, linKey] = [Keypair.random(), Keypair.random()]
      const adaId = yield* readyContractor(app, owner.token, "Ada Lovelace", adaKey)
      yield* readyContractor(app, owner.token, "Lin Ye", linKey)
      const batches: Array<string> = []
      for (const [name, amount] of TO_ADA) {
        const batch = yield* must(app, "POST", "/batches", owner.token, { name })
        const [payout] = (yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: [adaId] })) as Array<{ id: string }>
        yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
        yield* payPayouts(app, payer, owner.token, [{ payoutId: payout!.id, to: adaKey.publicKey(), amount }])
        batches.push(batch.id as string)
      }
      yield* transferDirectly(payer, linKey.publicKey(), TO_LIN)

      // Each batch's payout settled (the batch page offers to disclose a settled payout), all three in the archive.
      const hashOf = (batchId: string) =>
        must(app, "GET", `/batches/${batchId}/payouts`, owner.token).pipe(
          Effect.filterOrFail((page) => (page.items as Array<{ status: string }>).every((p) => p.status === "settled"), () => "not yet" as const),
          Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 300 }),
          Effect.orDie,
          Effect.map((page) => (page.items as Array<{ hash: string }>)[0]!.hash)
        )
      const [march, april] = [yield* hashOf(batches[0]!), yield* hashOf(batches[1]!)]
      const sent = yield* transfersOf(app, owner.wallet.publicKey(), 3)
      expect(sent.map((e) => e.originator)).toEqual(sent.map(() => owner.wallet.publicKey()))
      const asked = sent.find((e) => e.ref.txHash === march)!
      const toLin = sent.find((e) => e.to === linKey.publicKey())!
      expect(asked.to).toBe(adaKey.publicKey())
      const hashes = { march, april, lin: toLin.ref.txHash }

      // The bank: its key and three requests, in a browser of its own with no account.
      const bank = yield* Effect.acquireRelease(
        Effect.promise(() => browser.newContext({ baseURL: app.url, acceptDownloads: true, viewport: { width: 1440, height: 900 } })),
        (context) => Effect.promise(() => context.close())
      )
      const verifier = yield* Effect.promise(() => bank.newPage())
      const ONE = "Bank: Ada's March payout"
      const TOTAL = "Bank: paid to Ada"
      const INCOME = "Bank: Lin's income"
      const ask = async (kind: "event" | "sent-total" | "received-total", label: string, fill: () => Promise<void>) => {
        await verifier.getByLabel("What you ask").selectOption(kind)
        await fill()
        await verifier.getByLabel("Label (optional, shown to the holder)").fill(label)
        await verifier.getByRole("button", { name: "Make the request" }).click()
        await issuedRequest(verifier, label).waitFor()
      }
      const period = async () => {
        await verifier.getByLabel("From (inclusive)").fill(utcDay(-1))
        await verifier.getByLabel("Until (exclusive)").fill(utcDay(1))
      }
      const requests = yield* Effect.promise(async () => {
        await verifier.goto("/app/verify")
        await verifier.getByRole("button", { name: "Make a key" }).click({ timeout: 120_000 })
        await ask("event", ONE, async () => {
          await verifier.getByLabel("Transaction hash").fill(asked.ref.txHash)
          await verifier.getByLabel("Event index").fill(String(asked.ref.eventIndex))
        })
        await ask("sent-total", TOTAL, async () => {
          await verifier.getByLabel("Payee (G…)").fill(adaKey.publicKey())
          await period()
        })
        await ask("received-total", INCOME, async () => {
          await verifier.getByLabel("Payer (G…)").fill(owner.wallet.publicKey())
          await period()
        })
        const totalFile = Path.join(dir, "total-request.json")
        await downloaded(verifier, issuedRequest(verifier, TOTAL).getByRole("button", { name: "Download the request" }), totalFile)
        const linkOf = (label: string) => issuedRequest(verifier, label).getByRole("link", { name: "Link for the holder" }).getAttribute("href")
        await screenshots(verifier, "disclose-sender-requests")
        return { totalFile, one: (await linkOf(ONE))!, income: (await linkOf(INCOME))! }
      })

      // The owner, on March's batch page: "Disclose this payout" on Ada's row, the link pasted, then the total's file.
      const employer = yield* Effect.promise(() => personAt(browser, app, owner.wallet))
      const oneBundle = Path.join(dir, "one-bundle.json")
      const totalBundle = Path.join(dir, "total-bundle.json")
      const payerSide = yield* Effect.promise(async () => {
        const page = employer.page
        await signIn(employer, `/app/batches/${batches[0]}`)
        await heading(page, "March payroll")
        await page.getByRole("row").filter({ hasText: "Ada Lovelace" }).getByRole("button", { name: "Disclose this payout" }).click()
        const section = page.getByRole("region", { name: "Disclose this payout" })
        await section.getByLabel("The request's link or file contents").fill(requests.one)
        await section.getByRole("button", { name: "Open the request" }).click()
        await section.getByText(`${ONE} asks for the amount of one payout`).waitFor({ timeout: 60_000 })
        const one = await selection(page, hashes)
        await inspect(employer, "disclose-sender-one-opened")
        await prove(employer, oneBundle)

        await section.getByLabel("or a request file").setInputFiles(requests.totalFile)
        await section.getByText(`${TOTAL} asks for the total you paid ${short(adaKey.publicKey())}`).waitFor({ timeout: 60_000 })
        const total = await selection(page, hashes)
        await inspect(employer, "disclose-sender-total-opened")
        await prove(employer, totalBundle)
        await inspect(employer, "disclose-sender-total-proven")
        return { one, total }
      })
      // The checklist is the owner's payouts (to Ada twice, to Lin once); each request selects what it asks about.
      expect(payerSide.one).toEqual({ listed: 3, selected: ["march"] })
      expect(payerSide.total).toEqual({ listed: 3, selected: ["march", "april"] })
      // Sign-in, then the key message once per proof: nothing was sent but the bundles' downloads.
      expect(employer.confirmations).toEqual({ signMessage: 2, signTransaction: 1 })
      expect(employer.problems).toEqual([])

      // Lin, in the directory but never in a batch: their payouts page lists no payout and still answers the request.
      const lin = yield* Effect.promise(() => personAt(browser, app, linKey))
      const incomeBundle = Path.join(dir, "income-bundle.json")
      const linSide = yield* Effect.promise(async () => {
        const page = lin.page
        await signIn(lin, requests.income)
        await heading(page, "My payouts")
        await page.getByText("No payout to you yet.").waitFor()
        const answer = page.getByRole("region", { name: "Answer a disclosure request" })
        await answer.getByText(`${INCOME} asks for the total ${short(owner.wallet.publicKey())} paid you`).waitFor({ timeout: 60_000 })
        const income = await selection(page, { lin: hashes.lin })
        await inspect(lin, "disclose-sender-outside-payroll")
        await prove(lin, incomeBundle)
        return income
      })
      expect(linSide).toEqual({ listed: 1, selected: ["lin"] })
      expect(lin.confirmations).toEqual({ signMessage: 1, signTransaction: 1 })
      expect(lin.problems).toEqual([])

      // The bank verifies each bundle against the chain and reads exactly the disclosed values.
      const shown = yield* Effect.promise(async () => {
        const verified = (label: string, bundle: string) => verifiedOnPage(verifier, label, bundle)
        const one = await verified(ONE, oneBundle)
        const total = await verified(TOTAL, totalBundle)
        const income = await verified(INCOME, incomeBundle)
        await screenshots(verifier, "disclose-sender-verified")
        return { one, total, income, violations: await axeViolations(verifier) }
      })
      const totalToAda = TO_ADA[0][1] + TO_ADA[1][1]
      const by = (account: string) => `disclosed by ${account.slice(0, 8)}…${account.slice(-8)}\\.$`
      expect(shown.one.verdict).toMatch(new RegExp(`^Verified: ${formatAmount(TO_ADA[0][1])} USDC, ${by(owner.wallet.publicKey())}`))
      expect(shown.one.value).toBe(formatAmount(TO_ADA[0][1]))
      expect(shown.total.verdict).toMatch(new RegExp(`^Verified: ${formatAmount(totalToAda)} USDC over 2 payouts, ${by(owner.wallet.publicKey())}`))
      expect(shown.total.value).toBe(formatAmount(totalToAda))
      expect(shown.income.verdict).toMatch(new RegExp(`^Verified: ${formatAmount(TO_LIN)} USDC, ${by(linKey.publicKey())}`))
      expect(shown.income.value).toBe(formatAmount(TO_LIN))
      expect(shown.violations).toEqual([])
      yield* Effect.promise(() => Promise.all([employer.context.close(), lin.context.close()]))
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped), 900_000)
})
