import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { Browser } from "playwright-core"
import { consoleBuilt, launchBrowser } from "./support/Browser.ts"
import { heading, inspect, personAt, signIn, statusOf } from "./support/ConsolePeople.ts"
import { joinAs, must, readyContractor } from "./support/Members.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"

// Issue 31 §1 in Chromium: amounts entered and sealed in the initiator's browser, read by the members who may read
// them (each with a sealing key derived from their own wallet through Freighter's signMessage), shared with a member
// who joined later, approved by digest — and never shown to a viewer nor readable by the service.

class Chromium extends Context.Tag("test/amounts/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleBuilt, launchBrowser))

const amountCell = (page: import("playwright-core").Page, name: string) =>
  page.getByRole("region", { name: "Amounts" }).getByRole("row").filter({ hasText: name }).locator("td").nth(1)

layer(Layer.mergeAll(TestAppLive(), ChromiumLive), { timeout: 300_000, excludeTestServices: true })("sealed amounts in the console", (it) => {
  it.effect("the initiator enters and seals amounts, a viewer sees none, the approver reads them and approves their digest, a later member is shared them", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const owner = yield* walletEmployer(app, "Sealed Co")
      yield* must(app, "PATCH", "/org/settings", owner.token, { approvalsRequired: 1 })
      const ada = yield* readyContractor(app, owner.token, "Ada Lovelace")
      const grace = yield* readyContractor(app, owner.token, "Grace Hopper")
      yield* readyContractor(app, owner.token, "Katherine Johnson")
      const initiatorMember = yield* joinAs(app, owner, "initiator")
      const approverMember = yield* joinAs(app, owner, "approver")
      const viewerMember = yield* joinAs(app, owner, "viewer")
      const batch = yield* must(app, "POST", "/batches", initiatorMember.token, { name: "December 2026" })
      yield* must(app, "POST", `/batches/${batch.id}/payouts`, initiatorMember.token, { contractorIds: [ada.id, grace.id] })
      const path = `/app/batches/${batch.id}`

      const initiator = yield* Effect.promise(() => personAt(browser, app, initiatorMember.wallet))
      const approver = yield* Effect.promise(() => personAt(browser, app, approverMember.wallet))
      const viewer = yield* Effect.promise(() => personAt(browser, app, viewerMember.wallet))
      yield* Effect.promise(async () => {
        // The initiator unlocks (their wallet signs the sealing-key message), types two amounts, imports a third
        // payout with its amount from a CSV file, and seals them.
        await signIn(initiator, path)
        await heading(initiator.page, "December 2026")
        await inspect(initiator, "batch-amounts-locked")
        await initiator.page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
        await initiator.page.getByLabel("Amount for Ada Lovelace").fill("1,250.5")
        await initiator.page.getByLabel("Amount for Grace Hopper").fill("12.34567891")
        await initiator.page.getByText("At most 7 decimal places.").waitFor()
        expect(await initiator.page.getByRole("button", { name: "Seal amounts" }).isDisabled()).toBe(true)
        await initiator.page.getByLabel("Amount for Grace Hopper").fill("980")
        const csv = "name,amount\r\nKatherine Johnson,\"1,000.25\"\r\nNobody Here,5\r\n"
        await initiator.page.getByLabel("Import amounts from CSV").setInputFiles({ name: "december.csv", mimeType: "text/csv", buffer: Buffer.from(csv) })
        await initiator.page.getByText("Row 3: no ready contractor matches \"Nobody Here\".").waitFor()
        await initiator.page.getByLabel("Amount for Katherine Johnson").waitFor()
        expect(await initiator.page.getByLabel("Amount for Katherine Johnson").inputValue()).toBe("1000.25")
        await initiator.page.getByText("Total: 3,230.75 USDC").waitFor()
        await inspect(initiator, "batch-amounts-editor")
        await initiator.page.getByRole("button", { name: "Seal amounts" }).click()
        await initiator.page.getByText("Sealed for 1 member: you.").waitFor()
        await initiator.page.getByRole("button", { name: "Mark ready" }).click()
        await statusOf(initiator.page).getByText("ready").waitFor()
        await initiator.page.getByText("Total: 3,230.75 USDC").waitFor()
      })

      // What the service holds is ciphertext: no form of the amounts in what it answers.
      const stored = yield* must(app, "GET", `/batches/${batch.id}/sealed-amounts`, owner.token)
      const text = JSON.stringify(stored)
      for (const form of ["1250.5", "1,250.5", "12505000000", "3230.75", "980.0000000"]) expect(text).not.toContain(form)

      yield* Effect.promise(async () => {
        // The viewer: no amount, no way to unlock, and the page says why.
        await signIn(viewer, path)
        await heading(viewer.page, "December 2026")
        await viewer.page.getByText("Your role (viewer) does not include amounts:read.").waitFor()
        expect(await viewer.page.getByRole("button", { name: "Unlock amounts with Freighter" }).count()).toBe(0)
        expect(await viewer.page.locator("main").textContent()).not.toMatch(/1,250|3,230|980\.00|USDC/)
        await inspect(viewer, "batch-amounts-viewer")

        // The approver unlocks: the amounts were sealed before their key existed, so they cannot read them, and
        // cannot approve what they cannot see.
        await signIn(approver, path)
        await heading(approver.page, "December 2026")
        await approver.page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
        await approver.page.getByText("These amounts were sealed before you could read them.", { exact: false }).waitFor()
        expect(await approver.page.getByRole("button", { name: "Approve" }).isDisabled()).toBe(true)

        // The initiator's page, left open, learns of the approver's new key without a reload and offers to share
        // (same ciphertext, one more wrapped key: the digest is kept).
        await initiator.page.getByText("cannot read these amounts yet", { exact: false }).waitFor({ timeout: 20_000 })
        await initiator.page.getByRole("button", { name: "Share with 1 new member" }).click()
        await initiator.page.getByText("Sealed for 2 members", { exact: false }).waitFor()

        // The approver's page follows (it polls a ready batch) and shows each amount and the total before Approve.
        await amountCell(approver.page, "Ada Lovelace").getByText("1,250.50").waitFor({ timeout: 40_000 })
        expect(await amountCell(approver.page, "Grace Hopper").textContent()).toBe("980.00")
        expect(await amountCell(approver.page, "Katherine Johnson").textContent()).toBe("1,000.25")
        await approver.page.getByText("Total: 3,230.75 USDC").waitFor()
        await inspect(approver, "batch-amounts-approver")
        await approver.page.getByRole("button", { name: "Approve" }).click()
        await approver.page.locator(".facts").getByText("1 of 1").waitFor()
      })

      // The approval names the digest of the amounts the approver read.
      const approved = yield* must(app, "GET", `/batches/${batch.id}`, owner.token)
      expect(approved.approvals).toEqual([expect.objectContaining({ by: approverMember.wallet.publicKey(), sealedAmountsDigest: stored.digest })])

      // A member who joins later unlocks and is told they will be shared the amounts; any reader's open page (the
      // approver's) offers it at once.
      const adminMember = yield* joinAs(app, owner, "admin")
      const admin = yield* Effect.promise(() => personAt(browser, app, adminMember.wallet))
      yield* Effect.promise(async () => {
        await signIn(admin, path)
        await heading(admin.page, "December 2026")
        await admin.page.getByRole("button", { name: "Unlock amounts with Freighter" }).click()
        await admin.page.getByText("These amounts were sealed before you could read them.", { exact: false }).waitFor()
        await approver.page.getByRole("button", { name: "Share with 1 new member" }).click({ timeout: 20_000 })
        await approver.page.getByText("Sealed for 3 members", { exact: false }).waitFor()
        await approver.page.locator(".facts").getByText("1 of 1").waitFor()
        await amountCell(admin.page, "Katherine Johnson").getByText("1,000.25").waitFor({ timeout: 40_000 })
        for (const person of [initiator, approver, viewer, admin]) expect(person.problems).toEqual([])
      })
      yield* Effect.promise(() => Promise.all([initiator, approver, viewer, admin].map((p) => p.context.close())))
    }), 240_000)
})
