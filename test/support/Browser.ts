import AxeBuilder from "@axe-core/playwright"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { promisify } from "node:util"
import { type Browser, chromium, type Page } from "playwright-core"
import { buildProver, WORKER_FILE } from "../../scripts/ProverBundle.ts"

const ROOT = Path.resolve(import.meta.dirname, "../..")

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Where the browser suite leaves its screenshots (gitignored). */
export const SCREENSHOTS = Path.join(ROOT, "test", "screenshots")

const newest = (path: string): number =>
  statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newest(Path.join(path, name)))) : statSync(path).mtimeMs

/**
 * `build` into `output` unless the stamp beside it says it was built from sources no older than they are now. The
 * stamp holds the newest source time read *before* the build, and is written once the build is whole: a source edited
 * while a build runs is newer than the stamp, so the next call builds again (an output's own time would hide it).
 */
const whenStale = async (name: string, output: string, sources: ReadonlyArray<string>, build: () => Promise<unknown>) => {
  const stamp = Path.join(ROOT, "dist", `.${name}.built`)
  const newestSource = Math.max(...sources.map((p) => newest(Path.join(ROOT, p))))
  if (existsSync(output) && Number(readFileSyncOr(stamp)) >= newestSource) return
  rmSync(stamp, { force: true })
  await build()
  writeFileSync(stamp, String(newestSource))
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * `build` under a lock shared by every test process (vitest runs three files at a time, and several build the same
 * dist/ folder: two builds at once left a half-written folder, or failed with EEXIST). The lock is a directory made
 * atomically, holding its owner's pid; a lock whose owner died is taken over.
 */
const underBuildLock = async (name: string, build: () => Promise<void>) => {
  const lock = Path.join(ROOT, "dist", `.${name}.lock`)
  mkdirSync(Path.dirname(lock), { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(Path.join(lock, "pid"), String(process.pid))
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      const owner = Number(readFileSyncOr(Path.join(lock, "pid")))
      // No pid yet: its owner is between mkdir and writeFile; wait.
      if (owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true })
      else await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  try {
    await build()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

const readFileSyncOr = (path: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

/**
 * The console as the service serves it (dist/console), built again when anything it is built from is newer: its own
 * sources, the typed client and the contract.
 */
export const ensureConsoleBuilt = () =>
  underBuildLock("console", () =>
    whenStale("console", Path.join(ROOT, "dist", "console", "index.html"), ["console", "client/src", "src/Domain", "src/Api.ts"], () =>
      // Not execFileSync: a build blocks for a minute on a loaded machine, past vitest's 60 s worker-call timeout.
      promisify(execFile)(process.execPath, [Path.join(ROOT, "scripts", "build-console.ts")], { cwd: ROOT, maxBuffer: 64 << 20 })))

/**
 * The browser prover as the service serves it (dist/prover, scripts/ProverBundle.ts), built again when anything it is
 * built from is newer: the client's sources, the circuits, the bundle script, the locked dependencies (bb.js, noir_js).
 */
export const ensureProverBuilt = () =>
  underBuildLock("prover", () =>
    whenStale("prover", Path.join(ROOT, "dist", "prover", WORKER_FILE), ["client/src", "client/circuits", "scripts/ProverBundle.ts", "package-lock.json"], buildProver))

/** The console and its prover, each built when stale (see above). */
export const consoleAndProverBuilt = Effect.promise(async () => {
  await ensureConsoleBuilt()
  await ensureProverBuilt()
})

/** The console alone, built when stale. */
export const consoleBuilt = Effect.promise(ensureConsoleBuilt)

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
