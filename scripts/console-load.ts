// The console's first load, measured in Chromium against a running service (`npm start`, or any URL): how much
// JavaScript crosses the wire (gzipped, as the service sends it) and how long until the first page (sign-in) can be
// used, each time in a fresh browser context (no HTTP cache, no compiled code kept). docs/console.md has the figures.
//   node scripts/console-load.ts [http://127.0.0.1:3000] [runs]
import { chromium } from "playwright-core"

const base = (process.argv[2] ?? "http://127.0.0.1:3000").replace(/\/$/, "")
const runs = Number(process.argv[3] ?? 7)
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] })

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const samples: Array<{ readonly interactive: number; readonly entry: number; readonly all: number }> = []
// One warm-up: the browser's own first start is not the page's.
for (let i = 0; i <= runs; i++) {
  const context = await browser.newContext()
  const page = await context.newPage()
  const scripts: Array<Promise<{ readonly url: string; readonly bytes: number }>> = []
  page.on("response", (response) => {
    if (response.url().endsWith(".js")) scripts.push(response.request().sizes().then((s) => ({ url: response.url(), bytes: s.responseBodySize })))
  })
  await page.goto(`${base}/app`)
  await page.getByRole("button", { name: "Sign in with Freighter" }).waitFor()
  const interactive = Number(await page.evaluate("performance.now()"))
  await page.waitForLoadState("networkidle")
  const entry = String(await page.evaluate(`document.querySelector("script[src]").src`))
  const loaded = await Promise.all(scripts)
  if (i > 0) {
    samples.push({
      interactive,
      entry: loaded.filter((s) => s.url === entry).reduce((sum, s) => sum + s.bytes, 0),
      all: loaded.reduce((sum, s) => sum + s.bytes, 0)
    })
  }
  await context.close()
}
await browser.close()

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
const times = samples.map((s) => s.interactive)
console.log(`console first load at ${base}/app, ${runs} fresh contexts:`)
console.log(`  JavaScript (gzipped): ${kib(median(samples.map((s) => s.entry)))} before the sign-in page, ${kib(median(samples.map((s) => s.all)))} in all`)
console.log(`  sign-in page usable: median ${Math.round(median(times))} ms, best ${Math.round(Math.min(...times))} ms, worst ${Math.round(Math.max(...times))} ms after navigation`)
