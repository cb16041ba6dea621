// The Node side of the browser prover's suite (test/prover-browser.test.ts) and bench (bench/proving-browser.ts): the
// prover bundle (scripts/ProverBundle.ts) and the page script (ProverPage.ts) built into a temporary directory, served
// by node:http on 127.0.0.1 with or without cross-origin isolation, Chromium (playwright-core) with a fresh profile
// and a proxy that only records (every request that is not to 127.0.0.1 reaches it and is refused), and the renderer
// processes' memory (PSS) sampled from /proc while the page proves.
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { readdirSync, readFileSync } from "node:fs"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { buildProver, type ProverBundle, ROOT } from "../../scripts/ProverBundle.ts"
import { CHROMIUM } from "./Browser.ts"
import type { PageApi, PageOptions } from "./ProverPage.ts"

export const CIRCUITS_DIR = Path.join(ROOT, "client/circuits/8af46e2c")

export interface Built {
  readonly dir: string
  readonly prover: ProverBundle
  readonly close: () => Promise<void>
}

/** dist/prover's contents and the page script, built afresh into a temporary directory. */
export const buildAll = async (): Promise<Built> => {
  const dir = await mkdtemp(Path.join(tmpdir(), "prover-browser-"))
  const prover = await buildProver(Path.join(dir, "prover"))
  const esbuild = await import("esbuild")
  await esbuild.build({
    entryPoints: { "prover-page": Path.join(ROOT, "test/support/ProverPage.ts") },
    outdir: Path.join(dir, "page"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    logLevel: "warning"
  })
  return { dir, prover, close: () => rm(dir, { recursive: true, force: true }) }
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".gz": "application/octet-stream",
  ".dat": "application/octet-stream"
}

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>prover</title>
<link rel="icon" href="data:,">
<script type="module" src="/page/prover-page.js"></script></head><body><p>prover</p></body></html>`

export interface Site {
  readonly origin: string
  readonly isolated: boolean
  /** Every path the server was asked for, in order. */
  readonly served: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))
const closeServer = (server: Server) => () => new Promise<void>((resolve) => {
  server.closeAllConnections()
  server.close(() => resolve())
})

/**
 * `/` the page, `/page/` its script, `/prover/` the bundle, `/circuits/` the artifacts and manifest, `/crs/` the CRS.
 * Isolated: COOP same-origin and COEP require-corp on every answer (so the page and its workers are
 * crossOriginIsolated and bb may share memory between threads).
 */
export const serveSite = async (built: Built, crsDir: string, isolated: boolean): Promise<Site> => {
  const roots: ReadonlyArray<readonly [string, string]> = [
    ["/page/", Path.join(built.dir, "page")],
    ["/prover/", Path.join(built.dir, "prover")],
    ["/circuits/", CIRCUITS_DIR],
    ["/crs/", crsDir]
  ]
  const served: Array<string> = []
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname
    served.push(path)
    const headers: Record<string, string> = isolated
      ? { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp", "cross-origin-resource-policy": "same-origin" }
      : {}
    if (path === "/") return response.writeHead(200, { ...headers, "content-type": TYPES[".html"]! }).end(PAGE)
    const root = roots.find(([prefix]) => path.startsWith(prefix))
    const file = root === undefined ? undefined : Path.join(root[1], Path.normalize(path.slice(root[0].length)))
    if (root === undefined || file === undefined || !file.startsWith(root[1] + Path.sep)) return response.writeHead(404, headers).end()
    try {
      const body = await readFile(file)
      response.writeHead(200, { ...headers, "content-type": TYPES[Path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body)
    } catch {
      response.writeHead(404, headers).end()
    }
  })
  const port = await listen(server)
  return { origin: `http://127.0.0.1:${port}`, isolated, served, close: closeServer(server) }
}

export interface Trap {
  readonly port: number
  /** Every request Chromium sent through the proxy: each one is a request to somewhere other than 127.0.0.1. */
  readonly foreign: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** Chromium's proxy: loopback bypasses it (Chromium's implicit rule), everything else is recorded here and refused. */
export const startTrap = async (): Promise<Trap> => {
  const foreign: Array<string> = []
  const server = createServer((request, response) => {
    foreign.push(`${request.method} ${request.url}`)
    response.writeHead(403).end()
  })
  server.on("connect", (request: { url?: string }, socket: { destroy(): void }) => {
    foreign.push(`CONNECT ${request.url}`)
    socket.destroy()
  })
  const port = await listen(server)
  return { port, foreign, close: closeServer(server) }
}

export interface Chromium {
  readonly context: BrowserContext
  readonly userDataDir: string
  readonly close: () => Promise<void>
}

export const launchChromium = async (trap: Trap): Promise<Chromium> => {
  const userDataDir = await mkdtemp(Path.join(tmpdir(), "prover-chromium-"))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      `--proxy-server=http://127.0.0.1:${trap.port}`
    ]
  })
  return {
    context,
    userDataDir,
    close: async () => {
      await context.close()
      await rm(userDataDir, { recursive: true, force: true })
    }
  }
}

/** The Chromium processes launched with this profile, and their descendants: pid → its command line. */
const chromiumProcesses = (userDataDir: string): Map<number, string> => {
  const all = new Map<number, { ppid: number; cmdline: string }>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      all.set(Number(entry), { ppid, cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ") })
    } catch {
      // A process that ended while being read.
    }
  }
  const ours = new Map<number, string>()
  for (const [pid, p] of all) if (p.cmdline.includes(`--user-data-dir=${userDataDir}`) && !p.cmdline.includes("--type=")) ours.set(pid, p.cmdline)
  for (let grew = true; grew; ) {
    grew = false
    for (const [pid, p] of all) {
      if (!ours.has(pid) && ours.has(p.ppid)) {
        ours.set(pid, p.cmdline)
        grew = true
      }
    }
  }
  return ours
}

/** Proportional set size: a shared page counts once across the processes that map it, unlike RSS. */
const pssKb = (pid: number): number => {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? "0")
  } catch {
    return 0
  }
}

export interface Memory {
  /** The renderer processes' PSS summed (the page, its worker and bb's workers live in one), at the start and peak. */
  readonly rendererStartMb: number
  readonly rendererPeakMb: number
  /** All of this Chromium's processes, peak. */
  readonly totalPeakMb: number
}

/** Samples now and every 100 ms until stopped (Linux /proc; zeros elsewhere). */
export const sampleMemory = (userDataDir: string) => {
  const sample = () => {
    let renderer = 0
    let total = 0
    for (const [pid, cmdline] of chromiumProcesses(userDataDir)) {
      const kb = pssKb(pid)
      total += kb
      if (cmdline.includes("--type=renderer")) renderer += kb
    }
    return { renderer, total }
  }
  const start = sample()
  const peak = { ...start }
  const timer = setInterval(() => {
    const now = sample()
    peak.renderer = Math.max(peak.renderer, now.renderer)
    peak.total = Math.max(peak.total, now.total)
  }, 100)
  const mb = (kb: number) => Math.round(kb / 1024)
  return {
    stop: (): Memory => {
      clearInterval(timer)
      return { rendererStartMb: mb(start.renderer), rendererPeakMb: mb(peak.renderer), totalPeakMb: mb(peak.total) }
    }
  }
}

export interface PageRun<A> {
  readonly result: A
  /** Every URL the page and its workers requested, as Playwright reports them. */
  readonly requested: ReadonlyArray<string>
  /** From the page's script loaded to the end of `use`. */
  readonly memory: Memory
  readonly consoleErrors: ReadonlyArray<string>
}

/** ProverPage.ts's API as the page's global holds it. */
type PageGlobal = { readonly proverPage: PageApi }

/** Opens the site's page in a new tab, runs `use` on it once its script is loaded, closes the tab. */
export const onPage = async <A>(chromium: Chromium, site: Site, use: (page: Page) => Promise<A>): Promise<PageRun<A>> => {
  const page = await chromium.context.newPage()
  const requested: Array<string> = []
  const consoleErrors: Array<string> = []
  page.on("request", (request) => requested.push(request.url()))
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text())
  })
  page.on("pageerror", (error) => consoleErrors.push(error.message))
  try {
    await page.goto(`${site.origin}/`)
    await page.waitForFunction(() => "proverPage" in globalThis)
    const memory = sampleMemory(chromium.userDataDir)
    try {
      const result = await use(page)
      return { result, requested, memory: memory.stop(), consoleErrors }
    } finally {
      memory.stop()
    }
  } finally {
    await page.close()
  }
}

// Each function runs on the page, where globalThis is the Window ProverPage.ts has put its API on.
export const provePage = (chromium: Chromium, site: Site, options: PageOptions) =>
  onPage(chromium, site, (page) => page.evaluate((o) => (globalThis as unknown as PageGlobal).proverPage.prove(o), options))

export const failuresPage = (chromium: Chromium, site: Site) =>
  onPage(chromium, site, (page) => page.evaluate(() => (globalThis as unknown as PageGlobal).proverPage.failures()))
