// Proof time and memory of the selective-disclosure circuits (client/circuits/disclosure) in Chromium: the prover
// worker (scripts/ProverBundle.ts, circuits/ holding the disclosure circuits and their committed keys) set up as the
// console's disclosure page sets it up (console/src/disclosure/DisclosureWorker.ts: the disclosure manifest and one
// circuit, no token circuit), on a cross-origin-isolated page, on 1 bb thread (bench/disclosure.ts's figures in Node)
// and on navigator.hardwareConcurrency threads (what the console runs). The witnesses are bench/disclosure.ts's
// (witnessOf: real token payouts), built in Node and given to the page. A benchmark, not a test: it prints figures.
//
//   node_modules/.bin/node bench/disclosure-browser.ts        (BENCH_RUNS=3 proofs per circuit and case; CRS_DIR)
//
// Each circuit and case has a tab and a worker of its own, so that the renderer's memory is its own: its proportional
// set size (the page, the worker and bb's workers), sampled from /proc every 100 ms (test/support/ProverBrowser.ts),
// with the page loaded → peak while the worker sets up, proves and verifies. Proof times are the worker's (witness
// execution + proof, and bb's proving key for the first); verification is the worker's bb check of the last proof
// under the committed key (vks/, held to the manifest's sha256), timed on the page around the request. Every proof is
// checked again in Node (bb.js, same key) and its public inputs against the witness builder's. Before each circuit's
// Chromium cases, bench/disclosure.ts proves it in Node (its child process, 1 bb thread, same runs), so that the ratio
// Chromium/Node is taken minutes apart at most, under the same load from whatever else shares the machine.
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js"
import type { InputMap } from "@noir-lang/noir_js"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { cpus, loadavg } from "node:os"
import * as Path from "node:path"
import type { ProverClient, startProver } from "../client/src/confidential/browser/ProverClient.ts"
import type { Ready } from "../client/src/confidential/browser/ProverProtocol.ts"
import { DISCLOSURE_CIRCUITS, type DisclosureCircuitName } from "../client/src/confidential/disclosure/DisclosureCircuits.ts"
import { loadDisclosureKeys } from "../client/src/confidential/disclosure/DisclosureFiles.ts"
import { crsDirFromEnv, loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver } from "../client/src/confidential/proving/Prover.ts"
import { ROOT } from "../scripts/ProverBundle.ts"
import { buildAll, launchChromium, onPage, serveSite, startTrap } from "../test/support/ProverBrowser.ts"
import { type Figures, witnessOf } from "./disclosure.ts"

const runs = Number(process.env["BENCH_RUNS"] ?? "3")
const crsDir = crsDirFromEnv()
const CASES = [{ threads: 1 }, { threads: undefined }] as const

interface PageArgs {
  readonly circuit: DisclosureCircuitName
  readonly threads: number | undefined
  /** Each proof's input map as JSON (what Playwright carries to the page; InputMap's type is too deep for its own). */
  readonly inputs: ReadonlyArray<string>
  readonly key: string
}

interface PageFigures {
  readonly ready: Ready
  readonly proofs: ReadonlyArray<{ readonly ms: number; readonly executeMs: number; readonly proof: string; readonly publicInputs: string }>
  readonly verified: boolean
  readonly verifyMs: number
}

/** What the page's script (bundled below) puts on the page's global. */
interface PageApi {
  readonly startProver: typeof startProver
  readonly bytesToHex: typeof bytesToHex
  readonly hexToBytes: typeof hexToBytes
}

/** Runs on the page: it closes over nothing, and reaches the bundle through the global. */
const provePage = async (a: PageArgs): Promise<PageFigures> => {
  const api = (globalThis as unknown as { disclosureBench: PageApi }).disclosureBench
  const prover: ProverClient = api.startProver({
    workerUrl: "/prover/prover-worker.js",
    setup: {
      manifest: { url: "/prover/circuits/manifest.json" },
      circuits: {},
      disclosure: {
        manifest: { url: "/prover/circuits/disclosure-manifest.json" },
        circuits: Object.fromEntries([[a.circuit, { url: `/prover/circuits/${a.circuit}.json` }]])
      },
      crs: { g1: "/crs/bn254_g1.dat", g2: "/crs/bn254_g2.dat" },
      ...(a.threads === undefined ? {} : { threads: a.threads })
    }
  })
  try {
    const ready = await prover.ready
    const proved = []
    for (const inputs of a.inputs) proved.push(await prover.prove(a.circuit, JSON.parse(inputs) as InputMap))
    const proofs = proved.map((p) => ({ ms: p.ms, executeMs: p.executeMs, proof: api.bytesToHex(p.proof), publicInputs: api.bytesToHex(p.publicInputs) }))
    const started = performance.now()
    const verified = await prover.verify(a.circuit, proved.at(-1)!, api.hexToBytes(a.key))
    return { ready, proofs, verified, verifyMs: Math.round(performance.now() - started) }
  } finally {
    prover.cancel()
  }
}

const esbuild = await import("esbuild")
const pageScript = (
  await esbuild.build({
    stdin: {
      contents: `import { startProver } from "./client/src/confidential/browser/ProverClient.ts"
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js"
globalThis.disclosureBench = { startProver, bytesToHex, hexToBytes }`,
      resolveDir: ROOT,
      loader: "ts"
    },
    bundle: true, format: "iife", platform: "browser", target: "es2022", minify: true, write: false, logLevel: "warning"
  })
).outputFiles[0]!.text

const keys = await Effect.runPromise(loadDisclosureKeys())
const built = await buildAll()
const site = await serveSite(built, crsDir, true)
const trap = await startTrap()
const chromium = await launchChromium(trap)
const s = (ms: number) => (ms / 1000).toFixed(2)
const inNode = (circuit: DisclosureCircuitName): Figures => {
  const out = execFileSync(process.execPath, [Path.join(import.meta.dirname, "disclosure.ts"), "--child", circuit, crsDir], { encoding: "utf8", env: { ...process.env, BENCH_RUNS: String(runs) } })
  return JSON.parse(out.trim().split("\n").at(-1)!) as Figures
}

try {
  await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const verifier = yield* makeProver({ crs: yield* loadCrsDir(crsDir), threads: 1 })
    console.log(`${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Chromium ${chromium.context.browser()?.version() ?? "?"}, ` +
      `${runs} proofs a circuit and case, cross-origin isolated\n`)
    console.log("circuit                where     threads  setup ms  prove s (each)        execute ms   verify ms  memory MB        load  last proof ×Node")
    for (const circuit of DISCLOSURE_CIRCUITS) {
      const node = inNode(circuit)
      console.log(`${circuit.padEnd(22)} Node      ${"1".padStart(7)} ${"".padStart(9)}  ${node.proveMs.map(s).join(", ").padEnd(21)} ${"".padEnd(12)} ` +
        `${String(node.verifyMs).padStart(9)}  RSS ${`${node.rssStartMb}→${node.rssPeakMb}`.padStart(11)}  ${loadavg()[0]!.toFixed(1).padStart(4)}`)
      for (const c of CASES) {
        const witnesses = Array.from({ length: runs }, () => witnessOf(circuit))
        const args: PageArgs = { circuit, threads: c.threads, inputs: witnesses.map((w) => JSON.stringify(w.inputs)), key: bytesToHex(keys[circuit]) }
        const run = yield* Effect.promise(() => onPage(chromium, site, async (page) => {
          await page.addScriptTag({ content: pageScript })
          return page.evaluate(provePage, args)
        }))
        const r = run.result
        if (!r.verified) throw new Error(`the ${circuit} proof does not verify in the browser under its committed key`)
        for (const [i, p] of r.proofs.entries()) {
          const proof = { proof: hexToBytes(p.proof), publicInputs: hexToBytes(p.publicInputs) }
          if (!(yield* verifier.verifyWithKey!(circuit, proof, keys[circuit]))) throw new Error(`a ${circuit} proof from the browser does not verify in Node`)
          const expected = witnesses[i]!.publicInputs.map((x) => x.toString(16).padStart(64, "0")).join("")
          if (!p.publicInputs.startsWith(expected)) throw new Error(`a ${circuit} proof's public inputs are not the witness builder's`)
        }
        if (run.consoleErrors.length > 0) console.log(`  page errors: ${run.consoleErrors.join("; ")}`)
        console.log(
          `${circuit.padEnd(22)} Chromium  ${String(r.ready.threads).padStart(7)} ${String(r.ready.ms).padStart(9)}  ${r.proofs.map((p) => s(p.ms)).join(", ").padEnd(21)} ` +
            `${r.proofs.map((p) => p.executeMs).join(", ").padEnd(12)} ${String(r.verifyMs).padStart(9)}  ` +
            `PSS ${`${run.memory.rendererStartMb}→${run.memory.rendererPeakMb}`.padStart(11)}  ${loadavg()[0]!.toFixed(1).padStart(4)}  ` +
            `${(r.proofs.at(-1)!.ms / node.proveMs.at(-1)!).toFixed(2).padStart(16)}`
        )
      }
    }
    console.log("\n(Node: bench/disclosure.ts's child, RSS; Chromium: renderer PSS; every browser proof verified again by bb.js in Node)")
  })))
  const foreign = trap.foreign.map((line) => line.split(" ").slice(0, 2).join(" ").slice(0, 80))
  if (foreign.length > 0) console.log(`requests beyond 127.0.0.1 (Chromium's own, through the recording proxy): ${[...new Set(foreign)].join("; ")}`)
} finally {
  await chromium.close()
  await Promise.all([site.close(), trap.close()])
  await built.close()
}
