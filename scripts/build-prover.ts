// Bundles the confidential client's browser prover (client/src/confidential/browser/ProverWorker.ts) into
// dist/prover/: prover-worker.js and its chunks, bb.js's two worker scripts and the wasm they fetch (see
// scripts/ProverBundle.ts for why each file is there). A page loads it only when it starts a prover
// (browser/ProverClient.ts startProver), never with its first page. Run by `npm install` (prepare) and `npm run build`
// beside the console (the service serves dist/prover at /app/prover/); without esbuild (an install without dev
// dependencies) nothing is built, and /app/prover/ says so.
//
//   node_modules/.bin/node scripts/build-prover.ts [outdir]
import * as Path from "node:path"
import type { BundleFile } from "./ProverBundle.ts"

try {
  await import("esbuild")
} catch {
  console.warn("build-prover: esbuild is not installed; the service answers /app/prover/ with 501 until the prover is built")
  process.exit(0)
}
const { buildProver } = await import("./ProverBundle.ts")

const started = performance.now()
const bundle = await buildProver(process.argv[2] === undefined ? undefined : Path.resolve(process.argv[2]))
const kb = (bytes: number) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KiB`
const sum = (files: ReadonlyArray<BundleFile>) => ({
  bytes: files.reduce((n, f) => n + f.bytes, 0),
  gzipBytes: files.reduce((n, f) => n + f.gzipBytes, 0)
})
const line = (name: string, f: { bytes: number; gzipBytes: number }) => `  ${name.padEnd(34)} ${kb(f.bytes).padStart(10)} ${kb(f.gzipBytes).padStart(10)}`

console.log(`build-prover: ${Path.relative(process.cwd(), bundle.outdir) || "."} in ${Math.round(performance.now() - started)} ms`)
console.log(`  ${"file".padEnd(34)} ${"raw".padStart(10)} ${"gzip -9".padStart(10)}`)
for (const f of bundle.files) console.log(line(f.name, f))
console.log(line("all files", sum(bundle.files)))
// One page loads one of bb's two wasm files: the threaded one when it is cross-origin isolated (and then thread.worker.js).
const loaded = (isolated: boolean) =>
  sum(bundle.files.filter((f) => (isolated ? f.name !== "barretenberg.wasm.gz" : f.name !== "barretenberg-threads.wasm.gz" && f.name !== "thread.worker.js")))
console.log(line("a page loads, not isolated", loaded(false)))
console.log(line("a page loads, cross-origin isolated", loaded(true)))
