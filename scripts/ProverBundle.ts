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
// The circuits the client pins (client/circuits/<commit>/: each artifact and the manifest) go into circuits/, so that
// a page gets the prover and what it proves from one place (the service serves dist/prover at /app/prover/); so do the
// disclosure circuits and their committed keys.
import type { BuildOptions, Metafile, Plugin } from "esbuild"
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { CIRCUITS_VERSION } from "../client/src/confidential/node.ts"

export const ROOT = fileURLToPath(new URL("..", import.meta.url))
export const WORKER_ENTRY = Path.join(ROOT, "client/src/confidential/browser/ProverWorker.ts")
export const WORKER_FILE = "prover-worker.js"

const BB_BROWSER = Path.join(ROOT, "node_modules/@aztec/bb.js/dest/browser")
const NOIR = Path.join(ROOT, "node_modules/@noir-lang")
const CIRCUITS = Path.join(ROOT, "client/circuits", CIRCUITS_VERSION)

/** Where the circuits land inside the bundle. */
export const CIRCUITS_FOLDER = "circuits"

const DISCLOSURE = Path.join(ROOT, "client/circuits/disclosure")
/** The disclosure manifest's name in circuits/ (beside OZ's manifest.json; the service serves one folder level). */
export const DISCLOSURE_MANIFEST = "disclosure-manifest.json"

/**
 * The selective-disclosure circuits (client/circuits/disclosure: disclose_*.json, their manifest, vks/*.vk.json),
 * flattened into circuits/ as [source, name]: the holder's page proves them, the verifier's page checks with the keys.
 */
const disclosureFiles = async (): Promise<ReadonlyArray<readonly [string, string]>> => [
  ...(await readdir(DISCLOSURE)).filter((n) => n.endsWith(".json")).map((n) => [Path.join(DISCLOSURE, n), n === "manifest.json" ? DISCLOSURE_MANIFEST : n] as const),
  ...(await readdir(Path.join(DISCLOSURE, "vks"))).filter((n) => n.endsWith(".vk.json")).map((n) => [Path.join(DISCLOSURE, "vks", n), n] as const)
]

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
  /** Relative to the bundle's directory (`circuits/register.json` for a circuit). */
  readonly name: string
  readonly bytes: number
  readonly gzipBytes: number
}

export interface ProverBundle {
  readonly outdir: string
  readonly files: ReadonlyArray<BundleFile>
  readonly metafile: Metafile
}

/** Writes dist/prover (or `outdir`) afresh: the worker's chunks, bb's two worker scripts, the four wasm files, the circuits. */
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
  await mkdir(Path.join(outdir, CIRCUITS_FOLDER))
  for (const name of (await readdir(CIRCUITS)).filter((n) => n.endsWith(".json"))) {
    await writeFile(Path.join(outdir, CIRCUITS_FOLDER, name), await readFile(Path.join(CIRCUITS, name)))
  }
  for (const [from, to] of await disclosureFiles()) await writeFile(Path.join(outdir, CIRCUITS_FOLDER, to), await readFile(from))
  const files: Array<BundleFile> = []
  for (const entry of (await readdir(outdir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const name = Path.relative(outdir, Path.join(entry.parentPath, entry.name))
    const bytes = await readFile(Path.join(outdir, name))
    files.push({ name, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length })
  }
  files.sort((a, b) => a.name.localeCompare(b.name))
  return { outdir, files, metafile: result.metafile }
}
