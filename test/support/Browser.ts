import AxeBuilder from "@axe-core/playwright"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs"
import * as Path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"

const ROOT = Path.resolve(import.meta.dirname, "../..")

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Where the browser suite leaves its screenshots (gitignored). */
export const SCREENSHOTS = Path.join(ROOT, "test", "screenshots")

const newest = (path: string): number =>
  statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newest(Path.join(path, name)))) : statSync(path).mtimeMs

/**
 * The console as the service serves it (dist/console), built again when anything it is built from is newer: its own
 * sources, the typed client and the contract.
 */
export const ensureConsoleBuilt = () => {
  const index = Path.join(ROOT, "dist", "console", "index.html")
  const sources = ["console", "client/src", "src/Domain", "src/Api.ts"].map((p) => newest(Path.join(ROOT, p)))
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources)) return
  execFileSync(process.execPath, [Path.join(ROOT, "scripts", "build-console.ts")], { cwd: ROOT, stdio: "pipe" })
}

export const launchBrowser = Effect.acquireRelease(
  Effect.promise(() => chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] })),
  (browser: Browser) => Effect.promise(() => browser.close())
)

/** axe-core's serious and critical violations on the page as it is now: each with the elements it found. */
export const axeViolations = async (page: Page) => {
  // Colours read mid-transition (a button fading from disabled to enabled) are not the page's: wait for the
  // running CSS transitions and finite animations to end first.
  await page.evaluate(
    `Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished.catch(() => undefined)))`
  )
  const result = await new AxeBuilder({ page }).analyze()
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }))
}

/** The page at 1440 and at 375 pixels wide, whole, as `<name>-1440.png` and `<name>-375.png`. */
export const screenshots = async (page: Page, name: string) => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: Path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}

/**
 * A picture for the documentation, `docs/images/<name>.png` (committed): what a 1440 × 900 window shows. Written only
 * when CONSOLE_DOCS_IMAGES is set, so that an ordinary run leaves the tree as it was.
 */
export const docsImage = async (page: Page, name: string) => {
  if (process.env.CONSOLE_DOCS_IMAGES === undefined) return
  const images = Path.join(ROOT, "docs", "images")
  mkdirSync(images, { recursive: true })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.screenshot({ path: Path.join(images, `${name}.png`) })
}
