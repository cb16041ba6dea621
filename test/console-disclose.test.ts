// Selective disclosure end to end in Chromium, both sides in the console (issue 37, SELECTIVE_DISCLOSURE.md §12), on
// the loopback token that verifies every proof with OZ's published keys: an organization pays a contractor three
// times through its payroll, another payer once straight to the network. A tax office, on /app/verify in a browser of
// its own with no account, makes a key and two requests: employer A's total over a period (sent as the request file)
// and one of A's payouts (sent as the link). The contractor, signed in with Freighter in their own browser, opens each
// on their payouts page, finds the payouts it asks about selected (and B's not), proves in the prover's worker and
// downloads the bundle; the tax office's page verifies each bundle against the chain and shows exactly that payout's
// amount, and A's total without B's payout.
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
import { signIn as signInNode } from "./support/Client.ts"
import { downloaded, issuedRequest, payingOrganization, verifiedOnPage } from "./support/ConsoleDisclosure.ts"
import { transfersOf } from "./support/DisclosureScene.ts"
import { heading, inspect, personAt, signIn } from "./support/ConsolePeople.ts"
import { fundedPayer, transferDirectly } from "./support/FundedPayer.ts"
import { must } from "./support/Members.ts"
import { ProvingApp, registeredWallet, UNIT } from "./support/ProvingConsole.ts"
import { TestApp } from "./support/TestApp.ts"

class Chromium extends Context.Tag("test/disclose/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleAndProverBuilt, launchBrowser))

const usdc = (whole: bigint, cents = 0n) => whole * UNIT + cents * 100_000n
const FROM_A = [["Design sprint", usdc(1250n, 50n)], ["Illustrations", usdc(980n)], ["Brand review", usdc(1100n, 25n)]] as const
const FROM_B = usdc(2100n, 75n)
const short = (text: string) => `${text.slice(0, 6)}…${text.slice(-6)}`
const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** The holder's checklist: each payout's label, and whether it is selected. */
const checklist = async (page: Page) => {
  const boxes = await page.getByRole("group", { name: "Payouts the disclosure covers" }).getByRole("checkbox").all()
  return Promise.all(boxes.map(async (box) => ({
    label: ((await page.locator(`label[for="${await box.getAttribute("id")}"]`).textContent()) ?? "").trim(),
    checked: await box.isChecked()
  })))
}

layer(Layer.mergeAll(ProvingApp, ChromiumLive), { timeout: "300 seconds", excludeTestServices: true })("Disclosure from the console to /app/verify", (it) => {
  it.effect("the contractor answers a total and a one-payout request from their payouts page; the tax office sees exactly those values", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const dir = mkdtempSync(Path.join(tmpdir(), "console-disclose-"))

      // The contractor's wallet, registered with the token; employer A pays through the payroll, B straight to RPC.
      const contractorKey = Keypair.random()
      yield* registeredWallet(app, contractorKey)
      const to = contractorKey.publicKey()
      const employerA = yield* payingOrganization(app, "Northwind Studio", to, usdc(5000n))
      const employerB = yield* fundedPayer(app, Keypair.random(), usdc(3000n))
      for (const [batch, amount] of FROM_A.slice(0, 2)) yield* employerA.pay(batch, amount)
      yield* transferDirectly(employerB, to, FROM_B)
      yield* employerA.pay(FROM_A[2][0], FROM_A[2][1])
      const totalA = FROM_A.reduce((sum, [, amount]) => sum + amount, 0n)

      // Every payout settled and in the archive (the holder's page reads its events from there).
      const contractorSession = yield* signInNode(app, contractorKey)
      yield* Effect.repeat(must(app, "GET", "/contractor/payouts", contractorSession), {
        schedule: Schedule.spaced("200 millis"),
        until: (page) => (page.items as Array<{ status: string }>).filter((p) => p.status === "settled").length === 3
      }).pipe(Effect.timeout("60 seconds"), Effect.orDie)
      const settled = yield* must(app, "GET", "/contractor/payouts", contractorSession)
      const events = yield* transfersOf(app, to, 4)
      const asked = events.find((e) => e.ref.txHash === (settled.items as Array<{ batchName: string; hash: string }>).find((p) => p.batchName === "Illustrations")!.hash)!
      expect(events.filter((e) => e.originator === employerA.account)).toHaveLength(3)

      // The tax office: its key and two requests, in a browser of its own with no account.
      const office = yield* Effect.acquireRelease(
        Effect.promise(() => browser.newContext({ baseURL: app.url, acceptDownloads: true, viewport: { width: 1440, height: 900 } })),
        (context) => Effect.promise(() => context.close())
      )
      const verifier = yield* Effect.promise(() => office.newPage())
      const TOTAL = "Tax office: Northwind total"
      const ONE = "Tax office: one payout"
      const { requestFile, link } = yield* Effect.promise(async () => {
        await verifier.goto("/app/verify")
        await verifier.getByRole("button", { name: "Make a key" }).click({ timeout: 120_000 })
        await verifier.getByLabel("What you ask").selectOption("received-total")
        await verifier.getByLabel("Payer (G…)").fill(employerA.account)
        await verifier.getByLabel("From (inclusive)").fill(utcDay(-1))
        await verifier.getByLabel("Until (exclusive)").fill(utcDay(1))
        await verifier.getByLabel("Label (optional, shown to the holder)").fill(TOTAL)
        await verifier.getByRole("button", { name: "Make the request" }).click()
        await issuedRequest(verifier, TOTAL).waitFor()
        await verifier.getByLabel("What you ask").selectOption("event")
        await verifier.getByLabel("Transaction hash").fill(asked.ref.txHash)
        await verifier.getByLabel("Event index").fill(String(asked.ref.eventIndex))
        await verifier.getByLabel("Label (optional, shown to the holder)").fill(ONE)
        await verifier.getByRole("button", { name: "Make the request" }).click()
        await issuedRequest(verifier, ONE).waitFor()
        const requestFile = Path.join(dir, "total-request.json")
        await downloaded(verifier, issuedRequest(verifier, TOTAL).getByRole("button", { name: "Download the request" }), requestFile)
        const link = await issuedRequest(verifier, ONE).getByRole("link", { name: "Link for the holder" }).getAttribute("href")
        await screenshots(verifier, "disclose-requests")
        return { requestFile, link: link! }
      })
      expect(new URL(link).pathname).toBe("/app/payouts")

      // The contractor opens the link signed out, signs in, and finds that payout (and only it) selected.
      const person = yield* Effect.promise(() => personAt(browser, app, contractorKey))
      const page = person.page
      const prove = async (file: string) => {
        await downloaded(page, page.getByRole("button", { name: "Prove and download the bundle" }), file, 240_000).catch(async (e: unknown) => {
          await page.screenshot({ path: "test/screenshots/disclose-stuck.png", fullPage: true })
          throw e
        })
        await page.getByRole("status").filter({ hasText: "The bundle is downloaded" }).waitFor()
      }
      const oneBundle = Path.join(dir, "one-bundle.json")
      const totalBundle = Path.join(dir, "total-bundle.json")
      const holder = yield* Effect.promise(async () => {
        await signIn(person, link)
        await heading(page, "My payouts")
        const answer = page.getByRole("region", { name: "Answer a disclosure request" })
        await answer.getByText(`${ONE} asks for the amount of one payout`).waitFor({ timeout: 60_000 })
        const one = await checklist(page)
        await inspect(person, "disclose-one-opened")
        await prove(oneBundle)

        // The aggregate request arrives as a file: A's three payouts selected, B's not.
        await answer.getByLabel("or a request file").setInputFiles(requestFile)
        await answer.getByText(`${TOTAL} asks for the total ${short(employerA.account)} paid you`).waitFor({ timeout: 60_000 })
        const total = await checklist(page)
        await inspect(person, "disclose-total-opened")
        await prove(totalBundle)
        await inspect(person, "disclose-total-proven")
        return { one, total, problems: person.problems, confirmations: person.confirmations }
      })
      const fromA = `From ${short(employerA.account)}`
      const fromB = `From ${short(employerB.key.publicKey())}`
      expect(holder.one.filter((c) => c.checked)).toEqual([{ label: expect.stringContaining(short(asked.ref.txHash)), checked: true }])
      expect(holder.one).toHaveLength(4)
      expect(holder.total.filter((c) => c.checked).map((c) => c.label.split(",")[0])).toEqual([fromA, fromA, fromA])
      expect(holder.total.filter((c) => !c.checked).map((c) => c.label.split(",")[0])).toEqual([fromB])
      // Sign-in, then the key message once per proof: nothing was sent but the bundles' downloads.
      expect(holder.confirmations).toEqual({ signMessage: 2, signTransaction: 1 })
      expect(holder.problems).toEqual([])

      // The tax office verifies each bundle against the chain and reads exactly the disclosed values.
      const shown = yield* Effect.promise(async () => {
        const verified = (label: string, bundle: string) => verifiedOnPage(verifier, label, bundle)
        const one = await verified(ONE, oneBundle)
        const total = await verified(TOTAL, totalBundle)
        await screenshots(verifier, "disclose-verified")
        return { one, total, violations: await axeViolations(verifier) }
      })
      expect(shown.one.verdict).toMatch(new RegExp(`^Verified: ${formatAmount(FROM_A[1][1])} USDC, disclosed by `))
      expect(shown.one.value).toBe(formatAmount(FROM_A[1][1]))
      expect(shown.total.verdict).toMatch(new RegExp(`^Verified: ${formatAmount(totalA)} USDC over 3 payouts, disclosed by `))
      expect(shown.total.value).toBe(formatAmount(totalA))
      expect(shown.total.value).not.toBe(formatAmount(totalA + FROM_B))
      expect(shown.violations).toEqual([])
      yield* Effect.promise(() => person.context.close())
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped), 900_000)
})
