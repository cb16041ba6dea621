// The prover's browser bundle (client/src/confidential/browser/ProverWorker.ts and what it imports) and its assets,
// as scripts/build-prover.ts writes them into dist/prover/ and the tests check them.
//
// bb.js 0.87's browser build (package.json "browser" export: dest/browser/index.js, webpack output):
// - starts its own module workers with `new Worker(new URL("./main.worker.js", import.meta.url))`, and main.worker.js
//   starts `./thread.worker.js` the same way. esbuild leaves `new URL(…, import.meta.url)` as it is, so the two
//   files are copied (minified) beside the chunk that holds bb's code; every output lands in one directory for that.
// - carries its wasm gzipped, base64 in a data: URL, in two chunks it imports dynamically (./barretenberg.js,
//   ./barretenberg-threads.js: 3.4 MB each), unless Barretenberg.new gets a `wasmPath`; then it fetches
//   `barretenberg.wasm.gz`, or `barretenberg-threads.wasm.gz` when the scope is cross-origin isolated, and gunzips
//   it (pako). The worker passes that path (ProverOptions.wasmPath), so here the two chunks are decoded into those
//   files and their imports become a stub that fails if ever reached.
// noir_js's wasm-bindgen packages fetch `new URL("<name>_bg.wasm", import.meta.url)`; the worker initialises them
// itself from beside its bundle, so the two .wasm files are copied there too.
import type { BuildOptions, Metafile, Plugin } from "esbuild"
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

export const ROOT = fileURLToPath(new URL("..", import.meta.url))
export const WORKER_ENTRY = Path.join(ROOT, "client/src/confidential/browser/ProverWorker.ts")
export const WORKER_FILE = "prover-worker.js"

const BB_BROWSER = Path.join(ROOT, "node_modules/@aztec/bb.js/dest/browser")
const NOIR = Path.join(ROOT, "node_modules/@noir-lang")

/** bb's inlined-wasm chunks: never loaded, since the worker gives bb a wasmPath. */
const noInlinedWasm: Plugin = {
  name: "bb-no-inlined-wasm",
  setup(build) {
    build.onResolve({ filter: /^\.\/barretenberg(-threads)?\.js$/ }, (args) =>
      args.importer.startsWith(BB_BROWSER) ? { path: args.path, namespace: "bb-no-inlined-wasm" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "bb-no-inlined-wasm" }, () => ({
      contents: `throw new Error("bb.js's inlined wasm is not in this bundle: Barretenberg.new needs a wasmPath")`,
      loader: "js"
    }))
  }
}

/** The worker's bundle: module format, code-split (bb.js and its wasm loader load when the prover starts). */
export const workerBuildOptions = (outdir: string): BuildOptions & { metafile: true } => ({
  entryPoints: { [WORKER_FILE.replace(/\.js$/, "")]: WORKER_ENTRY },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  metafile: true,
  legalComments: "eof",
  plugins: [noInlinedWasm],
  logLevel: "warning"
})

const dataUrlBytes = async (chunk: string): Promise<Uint8Array> => {
  const text = await readFile(Path.join(BB_BROWSER, chunk), "utf8")
  const match = /"data:application\/gzip;base64,([A-Za-z0-9+/=]+)"/.exec(text)
  if (match?.[1] === undefined) throw new Error(`no gzipped wasm data: URL in bb.js's ${chunk}`)
  return new Uint8Array(Buffer.from(match[1], "base64"))
}

export interface BundleFile {
  readonly name: string
  readonly bytes: number
  readonly gzipBytes: number
}

export interface ProverBundle {
  readonly outdir: string
  readonly files: ReadonlyArray<BundleFile>
  readonly metafile: Metafile
}

/** Writes dist/prover (or `outdir`) afresh: the worker's chunks, bb's two worker scripts and the four wasm files. */
export const buildProver = async (outdir: string = Path.join(ROOT, "dist/prover")): Promise<ProverBundle> => {
  const esbuild = await import("esbuild")
  await rm(outdir, { recursive: true, force: true })
  await mkdir(outdir, { recursive: true })
  const result = await esbuild.build(workerBuildOptions(outdir))
  await esbuild.build({
    entryPoints: ["main.worker.js", "thread.worker.js"].map((file) => Path.join(BB_BROWSER, file)),
    outdir,
    bundle: false,
    format: "esm",
    target: "es2022",
    minify: true,
    legalComments: "eof",
    logLevel: "warning"
  })
  const copies: ReadonlyArray<readonly [string, Promise<Uint8Array>]> = [
    ["barretenberg.wasm.gz", dataUrlBytes("barretenberg.js")],
    ["barretenberg-threads.wasm.gz", dataUrlBytes("barretenberg-threads.js")],
    ["acvm_js_bg.wasm", readFile(Path.join(NOIR, "acvm_js/web/acvm_js_bg.wasm"))],
    ["noirc_abi_wasm_bg.wasm", readFile(Path.join(NOIR, "noirc_abi/web/noirc_abi_wasm_bg.wasm"))]
  ]
  for (const [name, bytes] of copies) await writeFile(Path.join(outdir, name), await bytes)
  const files: Array<BundleFile> = []
  for (const name of (await readdir(outdir)).sort()) {
    const bytes = await readFile(Path.join(outdir, name))
    files.push({ name, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length })
  }
  return { outdir, files, metafile: result.metafile }
}
