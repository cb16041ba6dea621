import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer } from "effect"
import { readFile } from "node:fs/promises"
import type { Browser, Page } from "playwright-core"
import { Webhook } from "standardwebhooks"
import { MAX_DELAY } from "../console/src/api/Backoff.ts"
import { consoleBuilt, docsImage, launchBrowser } from "./support/Browser.ts"
import { heading, inspect, type Person, personAt, signIn, statusOf, ZONE } from "./support/ConsolePeople.ts"
import { joinAs, readyContractor } from "./support/Members.ts"
import { KeptAlive } from "./support/RawHttp.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"
import { webhookReceiver } from "./support/WebhookReceiver.ts"

class Chromium extends Context.Tag("test/Chromium")<Chromium, Browser>() {}

/** The console built (when its sources changed), then one Chromium for the whole file. */
const ChromiumLive = Layer.scoped(Chromium, Effect.zipRight(consoleBuilt, launchBrowser))

const sessionToken = async (page: Page) =>
  String(await page.evaluate(`JSON.parse(sessionStorage.getItem("payroll.session") ?? "{}").token`))

const state: {
  owner?: Person
  ownerToken?: string
  batchPath?: string
  firstLoad?: {
    readonly interactiveMs: number
    readonly scriptBytes: number
    readonly entryBytes: number
    readonly scripts: number
    signedInMs: number
  }
  approverInvite?: string
} = {}

/** Webhook receivers on loopback addresses are allowed here (a real delivery to the test), retried from 1 s. */
const CONFIG = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE: "1 second" }

layer(Layer.mergeAll(TestAppLive(CONFIG), ChromiumLive), { timeout: 300_000, excludeTestServices: true })("the console in Chromium", (it) => {
  it.effect("serves /app with its CSP, caching headers and no way out of assets/", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      yield* Effect.promise(async () => {
        const index = await fetch(`${app.url}/app/batches/anything`)
        expect(index.status).toBe(200)
        expect(index.headers.get("cache-control")).toBe("no-cache")
        const csp = index.headers.get("content-security-policy") ?? ""
        expect(csp).toMatch(/default-src 'self'/)
        expect(csp).toMatch(/script-src 'self'(;|$)/)
        expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)
        expect(index.headers.get("x-content-type-options")).toBe("nosniff")
        const html = await index.text()
        expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/)
        const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1]
        expect(script).toBeDefined()
        const asset = await fetch(`${app.url}${script}`)
        expect(asset.status).toBe(200)
        expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
        expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
        const unknown = await fetch(`${app.url}/app/assets/nothing-here.js`)
        expect(unknown.status).toBe(404)
        expect(((await unknown.json()) as { error: string }).error).toBe("no such file in the web console")
        const port = Number(new URL(app.url).port)
        const raw = await KeptAlive.open("127.0.0.1", port)
        for (const path of ["/app/assets/../../package.json", "/app/assets/..%2f..%2fpackage.json", "/app/assets/%2e%2e/%2e%2e/package.json"]) {
          const answer = await raw.send("GET", path)
          expect([path, answer?.status]).toEqual([path, 404])
          expect(answer?.body).not.toContain("confidential-payroll-service")
        }
        raw.close()
        const openapi = (await (await fetch(`${app.url}/openapi.json`)).json()) as { paths: Record<string, unknown> }
        expect(Object.keys(openapi.paths).filter((p) => p.startsWith("/app"))).toEqual([])
      })
    }))

  it.effect("onboarding: signs in with Freighter by keyboard, creates the organization, lands on the home page", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const key = Keypair.random()
      app.rpc.setAccount({ id: key.publicKey() })
      const owner = yield* Effect.promise(() => personAt(browser, app, key))
      state.owner = owner
      yield* Effect.promise(async () => {
        const { page } = owner
        const scripts: Array<Promise<{ readonly url: string; readonly bytes: number }>> = []
        page.on("response", (response) => {
          if (response.url().endsWith(".js")) {
            scripts.push(response.request().sizes().then((s) => ({ url: response.url(), bytes: s.responseBodySize })))
          }
        })
        await page.goto("/app")
        const button = page.getByRole("button", { name: "Sign in with Freighter" })
        await button.waitFor()
        const interactiveMs = Number(await page.evaluate("performance.now()"))
        await page.waitForLoadState("networkidle")
        const loaded = await Promise.all(scripts)
        const entry = /src="(\/app\/assets\/[^"]+\.js)"/.exec(await (await fetch(`${app.url}/app`)).text())?.[1] ?? ""
        state.firstLoad = {
          interactiveMs,
          scriptBytes: loaded.reduce((sum, s) => sum + s.bytes, 0),
          entryBytes: loaded.filter((s) => s.url.endsWith(entry)).reduce((sum, s) => sum + s.bytes, 0),
          scripts: loaded.length,
          signedInMs: 0
        }
        expect(state.firstLoad.entryBytes).toBeGreaterThan(0)
        expect(state.firstLoad.scriptBytes).toBeLessThanOrEqual(300 * 1024)
        await inspect(owner, "sign-in")

        const focused = () => page.evaluate("document.activeElement?.textContent")
        for (let i = 0; i < 10 && (await focused()) !== "Sign in with Freighter"; i++) await page.keyboard.press("Tab")
        await page.keyboard.press("Enter")
        await heading(page, "Welcome")
        await inspect(owner, "onboarding")
        await page.getByLabel("Organization name").focus()
        await page.keyboard.type("Acme Payroll")
        await page.keyboard.press("Enter")
        await heading(page, "What needs you now")
        await page.getByText("Acme Payroll").first().waitFor()
        expect(await page.getByRole("link", { name: "Audit", exact: true }).count()).toBe(1)
        await inspect(owner, "home")
        expect(await page.evaluate("localStorage.length")).toBe(0)
        state.ownerToken = await sessionToken(page)
        expect(state.ownerToken).toMatch(/^ey/)

        // A returning member (a session in this tab): the home page, loaded from nothing.
        await page.reload()
        await heading(page, "What needs you now")
        state.firstLoad!.signedInMs = Number(await page.evaluate("performance.now()"))

        await page.getByRole("link", { name: "Settings" }).click()
        await heading(page, "Settings")
        await page.getByLabel("Approvals required").selectOption("1")
        await page.getByRole("button", { name: "Save" }).click()
        await page.getByText("Saved.").waitFor()
        await inspect(owner, "settings")

        await page.getByRole("link", { name: "Members" }).click()
        await heading(page, "Members")
        await page.getByLabel("Their role").selectOption("approver")
        await page.getByRole("button", { name: "Create invite" }).click()
        const token = page.locator(".secret code")
        await token.waitFor()
        state.approverInvite = (await token.textContent()) ?? ""
        expect(state.approverInvite.length).toBeGreaterThan(20)
        await inspect(owner, "members")

        await page.getByRole("link", { name: "API keys" }).click()
        await heading(page, "API keys")
        await page.getByText("No API key yet.").waitFor()
        await page.getByLabel("Name", { exact: true }).fill("Payroll runner")
        await page.getByLabel("transfers:submit").check({ force: true })
        await page.getByRole("button", { name: "Create key" }).click()
        const key = page.locator(".secret code")
        await key.waitFor()
        expect(await key.textContent()).toMatch(/^cpk_/)
        await page.getByRole("button", { name: "Copy key" }).click()
        await page.getByText("Copied.").waitFor()
        expect(await page.evaluate("navigator.clipboard.readText()")).toBe(await key.textContent())
        await page.getByRole("cell", { name: "batches:read, transfers:submit" }).waitFor()
        await inspect(owner, "api-keys")
        await page.reload()
        await page.getByRole("cell", { name: "Payroll runner", exact: true }).waitFor()
        expect(await page.locator(".secret code").count()).toBe(0)
        expect(owner.problems).toEqual([])
      })
    }), 120_000)

  it.effect("contractors: add, invite link, bulk import with errors per row; the contractor accepts the invite and sees their payouts", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const owner = state.owner!
      const contractor = yield* Effect.promise(() => personAt(browser, app, Keypair.random()))
      yield* Effect.promise(async () => {
        const { page } = owner
        await page.getByRole("link", { name: "Contractors" }).click()
        await heading(page, "Contractors")
        await page.getByText("No contractor yet").waitFor()
        await page.getByLabel("Name", { exact: true }).fill("Linus Torvalds")
        await page.getByLabel("Email (optional)").fill("linus@example.com")
        await page.getByRole("button", { name: "Add contractor" }).click()
        await page.getByText("Added Linus Torvalds (invited).").waitFor()
        await page.getByRole("button", { name: "Invite link for Linus Torvalds" }).click()
        const link = (await page.locator(".secret code").textContent()) ?? ""
        expect(link).toMatch(new RegExp(`^${app.url}/app/invites/.+`))

        await page.locator("#bulk-file").setInputFiles({
          name: "team.csv",
          mimeType: "text/csv",
          buffer: Buffer.from("name,email\r\nMargaret Hamilton,margaret@example.com\r\nBad Email,not-an-email\r\nLinus Again,linus@example.com\r\n")
        })
        await page.getByRole("button", { name: "Import 3 rows" }).click()
        await page.getByText("1 imported, 2 refused (see each row).").waitFor()
        const results = page.getByRole("region", { name: "Import from a CSV file" }).locator("tbody tr")
        expect(await results.nth(0).locator("td").last().textContent()).toBe("imported")
        expect(await results.nth(1).locator("td").last().textContent()).toMatch(/email/)
        expect(await results.nth(2).locator("td").last().textContent()).toMatch(/email/)
        const directory = page.getByRole("region", { name: "Directory" })
        await directory.getByRole("row").filter({ hasText: "margaret@example.com" }).getByText("invited", { exact: true }).waitFor()
        await inspect(owner, "contractors")

        // The contractor follows the link: signs in with their wallet, accepts.
        await contractor.page.goto(new URL(link).pathname)
        await contractor.page.getByText("You were invited to get paid").waitFor()
        await contractor.page.getByRole("button", { name: "Sign in with Freighter" }).click()
        await heading(contractor.page, "Acme Payroll invites you")
        await inspect(contractor, "invite")
        await contractor.page.getByRole("button", { name: "Accept invite" }).click()
        await heading(contractor.page, "Invite accepted")
        await contractor.page.getByText("onboarding", { exact: true }).waitFor()
        // The wallet registers with the confidential token: the chain's event makes the contractor ready, and the
        // page, reading /me again (at least every 5 s), follows without a reload. The reaction waits out any RPC
        // failure with its own back-off, which a loaded machine can stretch: 60 s.
        app.rpc.registerConfidentialWithEvent(CONFIDENTIAL_TOKEN, contractor.key.publicKey())
        app.rpc.advanceLedger()
        await contractor.page.getByText("ready", { exact: true }).waitFor({ timeout: 60_000 })
        await contractor.page.getByText("your wallet is registered with the confidential token").waitFor()
        await contractor.page.getByRole("link", { name: "See my payouts" }).click()
        await heading(contractor.page, "My payouts")
        await contractor.page.getByText("No payout to you yet.").waitFor()
        expect(await contractor.page.getByRole("link", { name: "Batches" }).count()).toBe(0)
        await inspect(contractor, "payouts")
        await page.reload()
        const linus = page.getByRole("region", { name: "Directory" }).getByRole("row").filter({ hasText: "linus@example.com" })
        await linus.getByText("ready", { exact: true }).waitFor()
        for (const person of [owner, contractor]) expect(person.problems).toEqual([])
      })
      yield* Effect.promise(() => contractor.context.close())
    }), 180_000)

  it.effect("four eyes: the initiator prepares, the viewer cannot approve, the approver rejects then approves, pauses, resumes; cancel", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const browser = yield* Chromium
      const owner = { token: state.ownerToken! }
      yield* readyContractor(app, owner.token, "Ada Lovelace")
      yield* readyContractor(app, owner.token, "Grace Hopper")
      const members = {
        initiator: yield* joinAs(app, owner, "initiator"),
        viewer: yield* joinAs(app, owner, "viewer")
      }
      const initiator = yield* Effect.promise(() => personAt(browser, app, members.initiator.wallet))
      const approverKey = Keypair.random()
      app.rpc.setAccount({ id: approverKey.publicKey() })
      const approver = yield* Effect.promise(() => personAt(browser, app, approverKey))
      const viewer = yield* Effect.promise(() => personAt(browser, app, members.viewer.wallet))
      yield* Effect.promise(async () => {
        // The initiator makes the batch and marks it ready.
        await signIn(initiator)
        await heading(initiator.page, "What needs you now")
        expect(await initiator.page.getByRole("heading", { name: "Awaiting my approval" }).count()).toBe(0)
        await initiator.page.getByRole("link", { name: "Batches" }).click()
        await heading(initiator.page, "Batches")
        await initiator.page.getByText("No batch yet").waitFor()
        await inspect(initiator, "batches-empty")
        await initiator.page.getByLabel("Batch name").fill("November 2026")
        await initiator.page.getByRole("button", { name: "Create batch" }).click()
        await heading(initiator.page, "November 2026")
        state.batchPath = new URL(initiator.page.url()).pathname
        await initiator.page.getByText("Ada Lovelace", { exact: true }).click()
        await initiator.page.getByText("Grace Hopper", { exact: true }).click()
        expect(await initiator.page.getByLabel("Grace Hopper").isChecked()).toBe(true)
        await inspect(initiator, "batch-draft")
        await initiator.page.getByRole("button", { name: "Add 2 payouts" }).click()
        await initiator.page.getByRole("cell", { name: "Grace Hopper", exact: true }).waitFor()
        await initiator.page.getByRole("button", { name: "Mark ready" }).click()
        await statusOf(initiator.page).getByText("ready").waitFor()
        const approve = initiator.page.getByRole("button", { name: "Approve" })
        expect(await approve.isDisabled()).toBe(true)
        await initiator.page.getByText("Your role (initiator) does not include batches:approve.").waitFor()
        const created = initiator.page.locator(".facts time").first()
        expect(await created.getAttribute("title")).toContain(ZONE)
        const inZone = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: ZONE })
        expect(await created.textContent()).toBe(inZone.format(new Date((await created.getAttribute("datetime"))!)))
        await inspect(initiator, "batch-ready")

        // The owner, who neither made nor readied it, finds it awaiting their approval (the README's pictures).
        const ownerPage = state.owner!.page
        await ownerPage.getByRole("link", { name: "Home" }).click()
        await heading(ownerPage, "What needs you now")
        const awaiting = ownerPage.getByRole("region", { name: "Awaiting my approval" }).getByRole("link", { name: "November 2026" })
        await awaiting.waitFor()
        await docsImage(ownerPage, "console-home")
        await awaiting.click()
        await heading(ownerPage, "November 2026")
        await ownerPage.getByRole("cell", { name: "Grace Hopper", exact: true }).waitFor()
        expect(await ownerPage.getByRole("button", { name: "Approve" }).isDisabled()).toBe(false)
        await docsImage(ownerPage, "console-batch")

        // The viewer sees the batch, and no control they could use.
        await signIn(viewer, state.batchPath)
        await heading(viewer.page, "November 2026")
        for (const name of ["Approve", "Reject", "Pause", "Cancel batch"]) {
          expect([name, await viewer.page.getByRole("button", { name, exact: true }).isDisabled()]).toEqual([name, true])
        }
        await viewer.page.getByText("Your role (viewer) does not include batches:approve.").waitFor()
        await inspect(viewer, "batch-viewer")
        expect(await viewer.page.getByRole("link", { name: "Webhooks" }).count()).toBe(0)
        await viewer.page.goto("/app/webhooks")
        await heading(viewer.page, "Webhooks")
        await viewer.page.getByText("Your role (viewer) does not include org:manage.").waitFor()

        // The approver joins with the owner's invite, finds the batch on the home page, rejects it with a reason.
        await signIn(approver)
        await heading(approver.page, "Welcome")
        await approver.page.getByLabel("Invite token").fill(state.approverInvite!)
        await approver.page.getByRole("button", { name: "Join organization" }).click()
        await heading(approver.page, "What needs you now")
        await approver.page.getByText("approver", { exact: true }).waitFor()
        await approver.page.getByRole("region", { name: "Awaiting my approval" }).getByRole("link", { name: "November 2026" }).click()
        await heading(approver.page, "November 2026")
        await approver.page.getByRole("button", { name: "Reject" }).click()
        await approver.page.getByLabel("Why is it rejected?").fill("Grace's payout belongs to December")
        await inspect(approver, "batch-reject")
        await approver.page.getByRole("button", { name: "Reject batch" }).click()
        await statusOf(approver.page).getByText("draft").waitFor()

        // The initiator's page follows (polling), and the initiator readies it again. It has sat unchanged since it was
        // readied, so its polls have backed off: the change shows at the next one, at most MAX_DELAY away.
        await statusOf(initiator.page).getByText("draft").waitFor({ timeout: MAX_DELAY + 10_000 })
        await initiator.page.getByRole("button", { name: "Mark ready" }).click()
        await statusOf(initiator.page).getByText("ready").waitFor()

        // The approver approves, pauses and resumes.
        await approver.page.reload()
        await statusOf(approver.page).getByText("ready").waitFor()
        await approver.page.getByRole("button", { name: "Approve" }).click()
        await approver.page.locator(".facts").getByText("1 of 1").waitFor()
        expect(await approver.page.getByRole("button", { name: "Approve" }).count()).toBe(0)
        await approver.page.getByRole("button", { name: "Pause" }).click()
        await statusOf(approver.page).getByText("paused").waitFor()
        await inspect(approver, "batch-paused")
        await approver.page.getByRole("button", { name: "Resume" }).click()
        await statusOf(approver.page).getByText("ready").waitFor()

        // The initiator cancels it: a second, explicit step.
        await initiator.page.reload()
        await initiator.page.getByRole("button", { name: "Cancel batch" }).click()
        await initiator.page.getByRole("button", { name: "Yes, cancel batch" }).click()
        await statusOf(initiator.page).getByText("canceled").waitFor()
        await initiator.page.getByText("This batch is canceled").waitFor()
        await inspect(initiator, "batch-canceled")
        for (const person of [initiator, approver, viewer]) expect(person.problems).toEqual([])
      })
      yield* Effect.promise(() => Promise.all([initiator, approver, viewer].map((p) => p.context.close())))
    }), 240_000)

  it.effect("audit: the trail shows the controls, filters by action, and Verify shows the chain's answer", () =>
    Effect.gen(function*() {
      const owner = state.owner!
      yield* Effect.promise(async () => {
        const { page } = owner
        await page.getByRole("link", { name: "Audit", exact: true }).click()
        await heading(page, "Audit trail")
        const entries = page.getByRole("region", { name: "Entries" })
        for (const action of ["batch.approved", "batch.rejected", "batch.paused", "batch.resumed"]) {
          await entries.getByText(action, { exact: true }).first().waitFor()
        }
        await inspect(owner, "audit")
        await page.getByLabel("Action").fill("batch.paused")
        await page.getByRole("button", { name: "Apply filters" }).click()
        await expect.poll(() => page.locator("tbody tr").count(), { timeout: 15_000 }).toBe(1)
        await entries.getByText("batch.paused", { exact: true }).waitFor()
        // The owner, who manages webhooks, is pointed to where checkpoints can be sent for keeping.
        await page.getByRole("region", { name: "Verify the chain" }).getByRole("link", { name: "Webhooks" }).waitFor()
        await page.getByRole("button", { name: "Verify", exact: true }).click()
        await page.getByText("The chain holds").waitFor()
        await inspect(owner, "audit-verified")
        // The checkpoint it shows, given back later: still in the chain; a made-up one is not.
        const checkpoint = (await page.getByRole("region", { name: "Verify the chain" }).locator(".secret > code").textContent())!
        expect(checkpoint).toMatch(/^\d+:[0-9a-f]{64}$/)
        await page.getByLabel("Earlier checkpoint (optional)").fill(checkpoint)
        await page.getByRole("button", { name: "Verify", exact: true }).click()
        await page.getByText("The earlier checkpoint is still in it, unchanged.").waitFor()
        await page.getByLabel("Earlier checkpoint (optional)").fill(`1:${"ab".repeat(32)}`)
        await page.getByRole("button", { name: "Verify", exact: true }).click()
        await page.getByText("The chain is broken").waitFor()
        await page.getByText(/the earlier checkpoint is not in the chain/).waitFor()
        await inspect(owner, "audit-checkpoint-refused")

        await page.getByRole("link", { name: "Exports" }).click()
        await heading(page, "Exports")
        await page.locator(".facts").getByText("Batches canceled").waitFor()
        const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download audit.csv" }).click()])
        expect(download.suggestedFilename()).toBe("audit.csv")
        const csv = await readFile((await download.path())!, "utf8")
        expect(csv.split("\r\n")[0]).toBe("id,at,actorType,actorId,action,subjectType,subjectId,from,to,requestId")
        expect(csv).toContain("batch.approved")
        await page.getByText(/audit\.csv downloaded: \d+ rows/).waitFor()
        await inspect(owner, "exports")

        await page.getByRole("link", { name: "Batches" }).click()
        await heading(page, "Batches")
        await page.getByRole("link", { name: "November 2026" }).waitFor()
        await inspect(owner, "batches")
        await page.getByRole("link", { name: "Home" }).click()
        await heading(page, "What needs you now")
        await inspect(owner, "home-after")
        expect(owner.problems).toEqual([])
      })
      const load = state.firstLoad!
      console.log(
        `[console figures] first load: ${load.scripts} script(s), ${(load.scriptBytes / 1024).toFixed(1)} KiB gzipped; ` +
          `of which ${(load.entryBytes / 1024).toFixed(1)} KiB before the sign-in page shows; sign-in interactive ` +
          `${Math.round(load.interactiveMs)} ms after navigation, a signed-in home page ${Math.round(load.signedInMs)} ms`
      )
    }), 120_000)

  it.scoped("webhooks: a refused url in the service's words; an endpoint added, its secret shown once; a delivery retried, delivered, resent; removed", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const owner = state.owner!
      const { page } = owner
      const receiver = yield* webhookReceiver("127.0.0.2", () => 503)
      const url = `${receiver.url}/hooks/payroll`
      let firstSecret = ""
      yield* Effect.promise(async () => {
        await page.getByRole("link", { name: "Webhooks" }).click()
        await heading(page, "Webhooks")
        await page.getByText("No webhook endpoint yet.").waitFor()
        const field = page.getByLabel("URL", { exact: true })
        await field.fill("https://payroll:hunter2@hooks.example.com/payroll")
        await page.getByRole("button", { name: "Add endpoint" }).click()
        await page.getByText("invalid url: the url must not carry credentials").waitFor()
        expect(await field.getAttribute("aria-invalid")).toBe("true")
        await inspect(owner, "webhooks-refused")

        await field.fill(url)
        for (const event of ["payout.settled", "payout.failed", "batch.completed"]) await page.getByLabel(event).uncheck({ force: true })
        await page.getByLabel("contractor.ready").check({ force: true })
        await page.getByRole("button", { name: "Add endpoint" }).click()
        const secret = page.locator(".secret > code")
        await secret.waitFor()
        expect(await secret.textContent()).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
        await page.getByRole("button", { name: "Copy signing secret" }).click()
        await page.getByText("Copied.").waitFor()
        expect(await page.evaluate("navigator.clipboard.readText()")).toBe(await secret.textContent())
        firstSecret = (await secret.textContent()) ?? ""
        await page.getByRole("cell", { name: "contractor.ready", exact: true }).waitFor()
        await inspect(owner, "webhooks")
        await page.reload()
        await page.getByRole("link", { name: url, exact: true }).waitFor()
        expect(await page.locator(".secret > code").count()).toBe(0)
      })

      // A contractor ready at once: contractor.ready, whose first attempt the receiver answers 503.
      yield* readyContractor(app, state.ownerToken!, "Katherine Johnson")
      yield* Effect.promise(async () => {
        await page.getByRole("link", { name: `Deliveries to ${url}` }).click()
        await heading(page, `Deliveries to ${new URL(url).host}`)
        const rows = page.getByRole("region", { name: "Deliveries", exact: true }).locator("tbody tr")
        await rows.first().getByText("HTTP 503").waitFor({ timeout: 15_000 })
        expect(await rows.first().getByText("pending", { exact: true }).count()).toBe(1)
        const next = rows.first().locator("td[data-label='Next attempt'] time")
        expect(await next.getAttribute("title")).toContain(ZONE)
        await inspect(owner, "webhook-deliveries-retrying")

        // The receiver recovers: the retry is delivered, and the page, polling while it is pending, shows it.
        receiver.answer = () => 200
        await rows.first().getByText("delivered", { exact: true }).waitFor({ timeout: 30_000 })
        const eventId = receiver.received[0]!.headers["webhook-id"]!
        expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]))
        await rows.first().getByText(eventId).waitFor()
        const before = receiver.received.length
        await page.getByRole("button", { name: /^Resend contractor\.ready/ }).click()
        await page.getByText("Queued again.").waitFor()
        await expect.poll(() => page.locator("tbody tr").count(), { timeout: 15_000 }).toBe(2)
        await rows.first().getByText("delivered", { exact: true }).waitFor({ timeout: 15_000 })
        expect(receiver.received.length).toBe(before + 1)
        expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(eventId)
        await inspect(owner, "webhook-deliveries")

        await page.getByLabel("Status", { exact: true }).selectOption("failed")
        await page.getByText("No failed delivery.").waitFor()
        await page.getByLabel("Status", { exact: true }).selectOption("")
        await rows.nth(1).waitFor()

        // The secret rotated with an hour's overlap: the new one shown once, and the next delivery signed by both.
        const signing = page.getByRole("region", { name: "Signing secret" })
        await signing.getByText("One secret signs each delivery.").waitFor()
        await page.getByLabel("The secret being replaced").selectOption("3600")
        await page.getByRole("button", { name: "Rotate secret" }).click()
        await page.getByRole("button", { name: "Yes, rotate" }).click()
        const newSecret = signing.locator(".secret > code")
        await newSecret.waitFor()
        const rotated = (await newSecret.textContent()) ?? ""
        expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
        expect(rotated).not.toBe(firstSecret)
        await signing.getByText(/The old one signs beside it until/).waitFor()
        await signing.getByText(/with the one it replaced/).waitFor()
        const delivered = receiver.received.length
        await page.getByRole("button", { name: /^Resend contractor\.ready/ }).first().click()
        await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(delivered + 1)
        const signedTwice = receiver.received.at(-1)!
        expect(signedTwice.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
        for (const key of [rotated, firstSecret]) expect(() => new Webhook(key).verify(signedTwice.body, signedTwice.headers)).not.toThrow()

        // The endpoint changed in place: one more event type.
        await page.getByLabel("batch.completed").check({ force: true })
        await page.getByRole("button", { name: "Save changes" }).click()
        await page.getByText("Saved.").waitFor()
        await page.locator(".facts div").filter({ hasText: "Events" }).getByText("contractor.ready, batch.completed").waitFor()
        await inspect(owner, "webhook-rotated")

        await page.getByRole("button", { name: "Remove endpoint" }).click()
        await page.getByRole("button", { name: "Yes, remove" }).click()
        await heading(page, "Webhooks")
        await page.getByText("No webhook endpoint yet.").waitFor()
        expect(owner.problems).toEqual([])
      })
    }), 120_000)
})
