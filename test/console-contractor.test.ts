// A contractor registers their wallet with the confidential token from the console, in Chromium (issue 31 §3, §4):
// the service on the loopback ledger whose token verifies real proofs (bb.js, OZ's published keys), an organization invites
// the contractor, who opens the invite with the Freighter stand-in, accepts, and registers in the page — keys from
// Freighter's SEP-53 signMessage, the `register` proof in the prover's Web Worker (dist/prover, served at /app/prover/),
// the transaction prepared through POST /stellar-rpc, signed by Freighter and sponsored (POST /contractor/register).
// The token then holds the account with the keys the Node client derives from the same wallet, and the page shows
// `ready`. Requests: every one the pages and their workers make is to the service's own origin, and Chromium runs
// behind a proxy that records (and refuses) whatever would leave 127.0.0.1. Timings are printed, never asserted.
import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer } from "effect"
import { loadavg } from "node:os"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { keysFromSigner } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { axeViolations, CHROMIUM, ensureConsoleBuilt, ensureProverBuilt, screenshots } from "./support/Browser.ts"
import { keypairSigner, proofVerifier } from "./support/ConfidentialProving.ts"
import { heading, inspect } from "./support/ConsolePeople.ts"
import { installFreighter } from "./support/FreighterStandIn.ts"
import { LoopbackConfidentialToken } from "./support/LoopbackConfidentialToken.ts"
import { must } from "./support/Members.ts"
import { startTrap, type Trap } from "./support/ProverBrowser.ts"
import { KeptAlive } from "./support/RawHttp.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"

/** The registries the loopback deploys beside the token at CONFIDENTIAL_TOKEN (their ids derive from its id). */
const REGISTRIES = new LoopbackConfidentialToken(CONFIDENTIAL_TOKEN, () => 0)

/** The service where the token verifies every proof, told where its registries are and serving Ignition's CRS. */
const ProvingApp = Layer.unwrapScoped(Effect.map(proofVerifier, (verifier) =>
  TestAppLive({
    ARCHIVE_POLL_INTERVAL: "200 millis",
    CONFIDENTIAL_AUDITOR_CONTRACT: REGISTRIES.auditorRegistry,
    CONFIDENTIAL_VERIFIER_CONTRACT: REGISTRIES.verifierRegistry
  }, { ledgerIntervalMs: 100, verifier })))

/** Chromium's own services (component updates, GAIA), which it may call even with every background switch off. */
const CHROMIUM_SERVICES = ["update.googleapis.com", "accounts.google.com"]

interface Sandbox {
  readonly browser: Browser
  readonly trap: Trap
}

class Chromium extends Context.Tag("test/ContractorChromium")<Chromium, Sandbox>() {}

/** The console and the prover built as the service serves them, then one Chromium behind the recording proxy. */
const ChromiumLive = Layer.scoped(
  Chromium,
  Effect.acquireRelease(
    Effect.promise(async () => {
      await ensureConsoleBuilt()
      await ensureProverBuilt()
      const trap = await startTrap()
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--no-sandbox",
          "--disable-dev-shm-usage",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          `--proxy-server=http://127.0.0.1:${trap.port}`
        ]
      })
      return { browser, trap }
    }),
    ({ browser, trap }) => Effect.promise(async () => {
      await browser.close()
      await trap.close()
    })
  )
)

interface Contractor {
  readonly key: Keypair
  readonly context: BrowserContext
  readonly page: Page
  /** Content-Security-Policy violations and uncaught errors the page reported. */
  readonly problems: Array<string>
  /** Every URL the page and its workers asked for. */
  readonly requested: Array<string>
}

/**
 * The page's own pulse, from its first script on: a 5 ms timer, counted (with the longest wait between two ticks)
 * while the console shows the proof as the running step, and animation frames meanwhile.
 */
const PULSE = `(() => {
  const pulse = { ticks: 0, frames: 0, longestGapMs: 0, last: performance.now() }
  window.__pulse = pulse
  const proving = () => document.querySelector('.steps [aria-current="step"]')?.textContent?.startsWith("Proving") === true
  setInterval(() => {
    const now = performance.now()
    if (proving()) {
      pulse.ticks++
      pulse.longestGapMs = Math.max(pulse.longestGapMs, Math.round(now - pulse.last))
    }
    pulse.last = now
  }, 5)
  const frame = () => {
    if (proving()) pulse.frames++
    requestAnimationFrame(frame)
  }
  requestAnimationFrame(frame)
})()`

const contractorAt = async (browser: Browser, app: TestAppShape, key: Keypair): Promise<Contractor> => {
  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1440, height: 900 }, locale: "en-GB" })
  await installFreighter(context, key)
  await context.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI))`
  })
  await context.addInitScript({ content: PULSE })
  const requested: Array<string> = []
  context.on("request", (request) => requested.push(request.url()))
  const page = await context.newPage()
  const problems: Array<string> = []
  page.on("console", (message) => {
    if (message.text().startsWith("CSP violation")) problems.push(message.text())
  })
  page.on("pageerror", (error) => problems.push(error.message))
  return { key, context, page, problems, requested }
}

/** An invited contractor of a new organization, their wallet on the ledger (no XLM: the service sponsors), the link. */
const invited = (app: TestAppShape, name: string) =>
  Effect.gen(function*() {
    const owner = yield* walletEmployer(app, "Acme Payroll")
    const contractor = yield* must(app, "POST", "/contractors", owner.token, { name, email: `${name.split(" ")[0]!.toLowerCase()}@example.com` })
    const invite = yield* must(app, "POST", `/contractors/${contractor.id}/invites`, owner.token)
    const key = Keypair.random()
    app.rpc.setAccount({ id: key.publicKey(), balance: 0n })
    return { key, path: `/app/invites/${invite.token as string}` }
  })

/** Opens the invite, signs in with Freighter and accepts: the invite page as the contractor then sees it. */
const accept = async (contractor: Contractor, path: string) => {
  const { page } = contractor
  await page.goto(path)
  await page.getByText("You were invited to get paid").waitFor()
  await page.getByRole("button", { name: "Sign in with Freighter" }).click()
  await heading(page, "Acme Payroll invites you")
  await page.getByRole("button", { name: "Accept invite" }).click()
  await heading(page, "Invite accepted")
  await page.getByText("onboarding", { exact: true }).waitFor()
}

const current = (page: Page) => page.locator('.steps [aria-current="step"]')

const foreignHosts = (trap: Trap) =>
  trap.foreign
    .map((line) => {
      const target = line.split(" ")[1] ?? ""
      return target.includes("://") ? new URL(target).hostname : target.split(":")[0]
    })
    .filter((host) => host === undefined || !CHROMIUM_SERVICES.includes(host))

const figures: Array<string> = []
/** The scripts the first page loads or preloads (index.html's), by path. */
const preloaded: Array<string> = []
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`

layer(Layer.mergeAll(ProvingApp, ChromiumLive), { timeout: 300_000, excludeTestServices: true })("a contractor registers in Chromium", (it) => {
  it.effect("serves the prover from /app/prover/ with the worker's policy, cross-origin isolation, caching, and no way out", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      yield* Effect.promise(async () => {
        const index = await fetch(`${app.url}/app/invites/anything`)
        const pageCsp = index.headers.get("content-security-policy") ?? ""
        expect(pageCsp).toMatch(/script-src 'self'(;|$)/)
        expect(pageCsp).not.toMatch(/unsafe|https?:/)
        expect(index.headers.get("cross-origin-opener-policy")).toBe("same-origin")
        expect(index.headers.get("cross-origin-embedder-policy")).toBe("require-corp")

        const worker = await fetch(`${app.url}/app/prover/prover-worker.js`, { headers: { "accept-encoding": "gzip" } })
        expect(worker.status).toBe(200)
        expect(worker.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
        const workerCsp = worker.headers.get("content-security-policy") ?? ""
        expect(workerCsp).toBe(pageCsp.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'"))
        expect(worker.headers.get("cross-origin-embedder-policy")).toBe("require-corp")
        expect(worker.headers.get("cross-origin-resource-policy")).toBe("same-origin")
        expect(worker.headers.get("cache-control")).toBe("no-cache")
        const etag = worker.headers.get("etag") ?? ""
        expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
        const again = await fetch(`${app.url}/app/prover/prover-worker.js`, { headers: { "if-none-match": etag } })
        expect(again.status).toBe(304)

        const chunk = /"\.\/(chunk-[A-Z0-9]{8}\.js)"/.exec(await worker.text())?.[1]
        expect(chunk).toBeDefined()
        const hashed = await fetch(`${app.url}/app/prover/${chunk}`)
        expect(hashed.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
        const wasm = await fetch(`${app.url}/app/prover/acvm_js_bg.wasm`)
        expect(wasm.headers.get("content-type")).toBe("application/wasm")
        const bb = await fetch(`${app.url}/app/prover/barretenberg.wasm.gz`, { headers: { "accept-encoding": "gzip" } })
        expect([bb.headers.get("content-type"), bb.headers.get("content-encoding")]).toEqual(["application/gzip", null])
        const manifest = (await (await fetch(`${app.url}/app/prover/circuits/manifest.json`)).json()) as { commit: string }
        expect(manifest.commit).toMatch(/^8af46e2c/)
        const unknown = await fetch(`${app.url}/app/prover/nothing.js`)
        expect([unknown.status, ((await unknown.json()) as { error: string }).error]).toEqual([404, "no such file in the browser prover"])

        const raw = await KeptAlive.open("127.0.0.1", Number(new URL(app.url).port))
        for (const path of ["/app/prover/../../package.json", "/app/prover/..%2f..%2fpackage.json", "/app/prover/circuits/../../../package.json", "/app/prover/%2e%2e/%2e%2e/package.json"]) {
          const answer = await raw.send("GET", path)
          expect([path, answer?.status]).toEqual([path, 404])
          expect(answer?.body).not.toContain("confidential-payroll-service")
        }
        raw.close()

        // The first page: the entry and what index.html preloads, as sent (gzip), within the console's budget.
        const html = await (await fetch(`${app.url}/app`)).text()
        const firstPage = [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
        const sent = await Promise.all(firstPage.map(async (path) => {
          const answer = await fetch(`${app.url}${path}`, { headers: { "accept-encoding": "gzip" } })
          await answer.arrayBuffer()
          return Number(answer.headers.get("content-length"))
        }))
        const firstPageBytes = sent.reduce((sum, n) => sum + n, 0)
        expect(firstPageBytes).toBeLessThanOrEqual(300 * 1024)
        figures.push(`first page: ${firstPage.length} scripts, ${kib(firstPageBytes)} as sent (gzip)`)
        preloaded.push(...firstPage)

        const deployment = await (await fetch(`${app.url}/confidential/deployment`)).json()
        expect(deployment).toEqual({
          contract: CONFIDENTIAL_TOKEN,
          auditorRegistry: REGISTRIES.auditorRegistry,
          verifierRegistry: REGISTRIES.verifierRegistry,
          underlyingAsset: REGISTRIES.underlyingAsset,
          auditorId: 0,
          networkPassphrase: app.rpc.networkPassphrase
        })
      })
    }))

  it.effect("registers the invited contractor's wallet in the browser: real proof in the worker, sponsored, then ready", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { browser, trap } = yield* Chromium
      const { key, path } = yield* invited(app, "Ada Lovelace")
      const contractor = yield* Effect.promise(() => contractorAt(browser, app, key))
      const expected = yield* Effect.promise(() => keysFromSigner({ signer: keypairSigner(key), account: key.publicKey(), contract: CONFIDENTIAL_TOKEN }))
      yield* Effect.promise(async () => {
        const { page } = contractor
        const scripts: Array<{ readonly url: string; readonly bytes: number }> = []
        page.on("response", (response) => {
          if (response.url().endsWith(".js")) void response.request().sizes().then((s) => scripts.push({ url: response.url(), bytes: s.responseBodySize }))
        })
        await accept(contractor, path)
        expect(await page.evaluate("crossOriginIsolated")).toBe(true)
        await page.getByRole("heading", { level: 2, name: "Register with the token" }).waitFor()
        await inspect({ page }, "contractor-register")
        const before = scripts.length

        const started = Date.now()
        await page.getByRole("button", { name: "Register with the token" }).click()
        await current(page).filter({ hasText: /^Proving/ }).waitFor({ timeout: 120_000 })
        const provingFrom = Date.now()
        // While bb proves in the worker, the page answers at once, and its clock for the step moves on (a proof over
        // within the wait leaves no current step: the step's own "done in" then says how long it took, and the pulse
        // below, counted while proving, that the page kept running).
        const proving = current(page).filter({ hasText: /^Proving/ })
        const shown = await proving.locator(".steps__when").textContent()
        await page.waitForTimeout(400)
        const roundTrip = Date.now()
        await page.evaluate("1")
        const roundTripMs = Date.now() - roundTrip
        if (await proving.count() > 0) expect(await proving.locator(".steps__when").textContent()).not.toBe(shown)
        // Measured before axe runs (axe works on the page's main thread).
        const pulse = (await page.evaluate("({ ...window.__pulse })")) as { ticks: number; frames: number; longestGapMs: number }
        await screenshots(page, "contractor-proving")
        expect(await axeViolations(page)).toEqual([])
        await page.getByText(/^Registered in/).waitFor({ timeout: 180_000 })
        const registeredMs = Date.now() - started
        const stepTimes = (await page.evaluate(
          `[...document.querySelectorAll(".steps li")].map((li) => [...li.children].map((c) => c.textContent).join(": "))`
        )) as ReadonlyArray<string>
        await inspect({ page }, "contractor-registered")

        const onChain = app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, key.publicKey())
        expect(onChain).toBeDefined()
        expect(Buffer.from(onChain!.viewingPublicKey).toString("hex")).toBe(expected.toJSON().viewingPublicKey.slice(2))
        expect(app.rpc.account(key.publicKey())!.balance).toBe(0n) // the sponsor paid the fee

        // The archive sees the token's register event; the page, reading /me again, follows without a reload.
        await page.getByText("ready", { exact: true }).waitFor({ timeout: 60_000 })
        await page.getByText("your wallet is registered with the confidential token").waitFor()
        // What was just done stays on the page (it is not offered again).
        expect(await page.getByRole("button", { name: "Register with the token" }).count()).toBe(0)
        expect(await page.getByText(/^Registered in/).count()).toBe(1)
        await inspect({ page }, "contractor-ready")

        expect(pulse.ticks).toBeGreaterThan(0)
        expect(pulse.frames).toBeGreaterThan(0)
        expect(roundTripMs).toBeLessThan(1_000)

        const later = scripts.slice(before).filter((s) => s.url.includes("/app/assets/"))
        // The wallet's chunks came with the click, none of them ahead with the first page.
        expect(later.length).toBeGreaterThan(0)
        expect(later.filter((s) => preloaded.includes(new URL(s.url).pathname))).toEqual([])
        figures.push(
          `registered in ${registeredMs} ms (proving from ${provingFrom - started} ms); while proving, the page's 5 ms timer ran ` +
            `${pulse.ticks} times (longest gap ${pulse.longestGapMs} ms), ${pulse.frames} frames, an evaluate round trip took ` +
            `${roundTripMs} ms; loaded on demand: ${later.map((s) => `${s.url.split("/").pop()} ${kib(s.bytes)}`).join(", ")} ` +
            `(as sent, gzip); steps: ${stepTimes.join(" | ")}`
        )

        expect(contractor.requested.length).toBeGreaterThan(0)
        expect(contractor.requested.filter((url) => !url.startsWith(`${app.url}/`))).toEqual([])
        expect(contractor.requested.some((url) => url.endsWith("/app/prover/prover-worker.js"))).toBe(true)
        expect(contractor.problems).toEqual([])
        expect(foreignHosts(trap)).toEqual([])
      })
      yield* Effect.promise(() => contractor.context.close())
    }), 300_000)

  it.effect("cancels a running proof (the worker ends, nothing is sent), and skips an account the token already holds", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { browser, trap } = yield* Chromium
      const { key, path } = yield* invited(app, "Grace Hopper")
      const contractor = yield* Effect.promise(() => contractorAt(browser, app, key))
      yield* Effect.promise(async () => {
        const { page } = contractor
        await accept(contractor, path)
        await page.getByRole("button", { name: "Register with the token" }).click()
        await current(page).filter({ hasText: /^(Running the register circuit|Proving)/ }).waitFor({ timeout: 120_000 })
        await page.getByRole("button", { name: "Cancel" }).click()
        await page.getByText("Cancelled: nothing was sent.").waitFor()
        expect(app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, key.publicKey())).toBeUndefined()
        await inspect({ page }, "contractor-cancelled")

        // Registered meanwhile by other means (the event not yet seen by the payroll): nothing to prove.
        app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, key.publicKey())
        const asked = contractor.requested.length
        await page.getByRole("button", { name: "Register with the token" }).click()
        await page.getByText("Your wallet is already registered with the confidential token").waitFor({ timeout: 30_000 })
        expect(contractor.requested.slice(asked).filter((url) => url.includes("/app/prover/"))).toEqual([])
        expect(contractor.requested.filter((url) => !url.startsWith(`${app.url}/`))).toEqual([])
        expect(contractor.problems).toEqual([])
        expect(foreignHosts(trap)).toEqual([])
      })
      yield* Effect.promise(() => contractor.context.close())
    }), 300_000)

  it("prints the figures", () => {
    console.log(`[contractor registration figures] load average ${loadavg()[0]!.toFixed(1)}; ${figures.join("; ")}`)
  })
})
