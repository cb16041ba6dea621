// Proof time and memory of the confidential client's prover in Chromium: the worker bundle (scripts/ProverBundle.ts)
// proving register and transfer (witnesses built on the page), not cross-origin isolated on 1 thread, and isolated on
// 1 and on navigator.hardwareConcurrency threads. The Node side of test/prover-browser.test.ts
// (test/support/ProverBrowser.ts), with more proofs. A benchmark, not a test: it prints figures; each proof is still
// verified by bb.js in Node, since a proof counts only then.
//
//   node_modules/.bin/node bench/proving-browser.ts          (BENCH_RUNS=3 proofs per circuit and case)
//
// Times are the worker's (witness execution + proof; the verification key is made before, and shown apart). Memory is
// the renderer processes' proportional set size (the page, its worker and bb's workers), sampled from /proc every
// 100 ms: with the page loaded, and its peak while the worker sets up and proves. Compare with bench/proving.ts, the same prover in Node.
import { hexToBytes } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import * as Path from "node:path"
import { type CircuitArtifact, loadCircuit, type Manifest } from "../client/src/confidential/proving/Artifacts.ts"
import { crsDirFromEnv, loadCrsDir } from "../client/src/confidential/proving/CrsFiles.ts"
import { makeProver } from "../client/src/confidential/proving/Prover.ts"
import { buildAll, CIRCUITS_DIR, launchChromium, provePage, serveSite, startTrap } from "../test/support/ProverBrowser.ts"
import type { PagedCircuit } from "../test/support/ProverPage.ts"

const runs = Number(process.env["BENCH_RUNS"] ?? "3")
const crsDir = crsDirFromEnv()
const json = <A>(file: string) => JSON.parse(readFileSync(Path.join(CIRCUITS_DIR, file), "utf8")) as A
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

const crs = await Effect.runPromise(loadCrsDir(crsDir))
const built = await buildAll()
const plain = await serveSite(built, crsDir, false)
const isolated = await serveSite(built, crsDir, true)
const trap = await startTrap()
const chromium = await launchChromium(trap)
const version = `Chromium ${chromium.context.browser()?.version() ?? "?"}`

const CASES = [
  { label: "not isolated", site: plain, threads: undefined },
  { label: "isolated", site: isolated, threads: 1 },
  { label: "isolated", site: isolated, threads: undefined }
] as const

try {
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const manifest = json<Manifest>("manifest.json")
        const load = (name: PagedCircuit) => loadCircuit(name, json<CircuitArtifact>(`${name}.json`), manifest)
        const circuits = { register: yield* load("register"), transfer: yield* load("transfer") }
        const verifier = yield* makeProver({ crs, threads: 1 })
        console.log(`${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), ${version}, ${runs} proofs a circuit and case, Aztec Ignition's CRS (${crs.points} points)`)
        console.log(`bundle: ${built.prover.files.map((f) => f.name).join(", ")}\n`)
        console.log("case                 threads  setup ms  vk ms (reg/tr)  register ms (each)    transfer ms (each)    main-thread gap ms  renderer PSS MB  load")
        for (const c of CASES) {
          const run = yield* Effect.promise(() =>
            provePage(chromium, c.site, { runs, ...(c.threads === undefined ? {} : { threads: c.threads }) })
          )
          const r = run.result
          for (const p of r.proofs) {
            const ok = yield* verifier.verify(circuits[p.circuit], { proof: hexToBytes(p.proof), publicInputs: hexToBytes(p.publicInputs) })
            if (!ok || p.publicInputs !== p.expected) throw new Error(`a ${p.circuit} proof from the browser does not verify`)
          }
          const each = (circuit: PagedCircuit) => r.proofs.filter((p) => p.circuit === circuit).map((p) => p.ms)
          const cell = (circuit: PagedCircuit) => `${each(circuit).join(", ")} (${median(each(circuit))})`.padEnd(21)
          console.log(
            `${c.label.padEnd(20)} ${String(r.ready.threads).padStart(7)} ${String(r.ready.ms).padStart(9)}  ${`${r.keyMs.register}/${r.keyMs.transfer}`.padEnd(14)}  ` +
              `${cell("register")} ${cell("transfer")} ${String(Math.max(...r.proofs.map((p) => p.longestGapMs))).padStart(18)} ` +
              `${`${run.memory.rendererStartMb}→${run.memory.rendererPeakMb}`.padStart(16)}  ${loadavg()[0]!.toFixed(1)}`
          )
        }
        console.log("\n(median in brackets; every proof verified by bb.js in Node)")
      })
    )
  )
  const foreign = trap.foreign.map((line) => line.split(" ").slice(0, 2).join(" ").slice(0, 80))
  if (foreign.length > 0) console.log(`requests beyond 127.0.0.1 (Chromium's own, through the recording proxy): ${[...new Set(foreign)].join("; ")}`)
} finally {
  await chromium.close()
  await Promise.all([plain.close(), isolated.close(), trap.close()])
  await built.close()
}
