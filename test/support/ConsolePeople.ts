import { deepStrictEqual } from "node:assert/strict"
import type { Keypair } from "@stellar/stellar-sdk"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { axeViolations, screenshots } from "./Browser.ts"
import { installFreighter, type WalletConfirmations } from "./FreighterStandIn.ts"
import type { TestAppShape } from "./TestApp.ts"

/** The time zone every person's browser is in (the pages show times in the browser's zone). */
export const ZONE = "America/New_York"

export interface Person {
  readonly key: Keypair
  readonly context: BrowserContext
  readonly page: Page
  /** Content-Security-Policy violations and uncaught errors the page reported. */
  readonly problems: Array<string>
  /** The requests their wallet was asked to confirm. */
  readonly confirmations: WalletConfirmations
}

/** One person at one browser: their own context (cookies, sessionStorage), their own Freighter. */
export const personAt = async (browser: Browser, app: Pick<TestAppShape, "url">, key: Keypair): Promise<Person> => {
  const context = await browser.newContext({
    baseURL: app.url,
    viewport: { width: 1440, height: 900 },
    timezoneId: ZONE,
    locale: "en-GB",
    permissions: ["clipboard-read", "clipboard-write"],
    acceptDownloads: true
  })
  const confirmations = await installFreighter(context, key)
  await context.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI))`
  })
  const page = await context.newPage()
  const problems: Array<string> = []
  page.on("console", (message) => {
    if (message.text().startsWith("CSP violation")) problems.push(message.text())
  })
  page.on("pageerror", (error) => problems.push(error.message))
  return { key, context, page, problems, confirmations }
}

/** Every page a suite visits: no serious or critical axe violation, and its screenshots at 375 and 1440 pixels. */
export const inspect = async (person: Pick<Person, "page">, name: string) => {
  const violations = await axeViolations(person.page)
  // node:assert, not vitest's expect: bench/console-pay.run.ts runs these helpers outside vitest.
  deepStrictEqual({ page: name, violations }, { page: name, violations: [] })
  await screenshots(person.page, name)
}

export const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor({ timeout: 15_000 })

export const signIn = async (person: Person, path = "/app") => {
  await person.page.goto(path)
  await person.page.getByRole("button", { name: "Sign in with Freighter" }).click()
}

/** A batch page's Status fact. */
export const statusOf = (page: Page) => page.locator(".facts div").filter({ hasText: "Status" }).locator("dd")
