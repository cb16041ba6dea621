// What the browser prover pulls in, read off esbuild's metafile with the same options scripts/build-prover.ts uses:
// from the worker entry (ProverWorker.ts) and the page's client (ProverClient.ts), no node:* module and neither of
// the Node-only files (proving/CrsFiles.ts, state/FileStore.ts); and the page's client stays small, leaving bb.js and
// noir_js to the worker, which a page loads only when it starts a prover.
import { describe, expect, it } from "@effect/vitest"
import type { Metafile, Plugin } from "esbuild"
import * as Path from "node:path"
import { ROOT, WORKER_ENTRY, workerBuildOptions } from "../../scripts/ProverBundle.ts"

const CLIENT_ENTRY = Path.join(ROOT, "client/src/confidential/browser/ProverClient.ts")
const NODE_ONLY = ["client/src/confidential/proving/CrsFiles.ts", "client/src/confidential/state/FileStore.ts"]

/** Lets the build finish with each node:* import left external, so the test can name them (and who imports them). */
const recordNode = (found: Array<string>): Plugin => ({
  name: "record-node",
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => {
      found.push(`${Path.relative(ROOT, args.importer)} imports ${args.path}`)
      return { path: args.path, external: true }
    })
  }
})

const graph = async (entry: string) => {
  const esbuild = await import("esbuild")
  const nodeImports: Array<string> = []
  const options = workerBuildOptions(Path.join(ROOT, "dist/prover-graph-check"))
  const result = await esbuild.build({
    ...options,
    entryPoints: [entry],
    write: false,
    minify: false,
    plugins: [...(options.plugins ?? []), recordNode(nodeImports)]
  })
  const metafile: Metafile = result.metafile
  return { inputs: Object.keys(metafile.inputs).map((p) => Path.relative(ROOT, Path.resolve(ROOT, p))), nodeImports }
}

describe("the browser prover's import graph", () => {
  it("has no node:* import and no Node-only file, from the worker entry", async () => {
    const { inputs, nodeImports } = await graph(WORKER_ENTRY)
    expect(nodeImports).toEqual([])
    expect(inputs.filter((p) => NODE_ONLY.includes(p))).toEqual([])
    // The walk did reach what the worker proves with: a graph that missed them would prove nothing.
    for (const reached of ["client/src/confidential/proving/Prover.ts", "client/src/confidential/proving/Crs.ts", "node_modules/@aztec/bb.js/dest/browser/index.js"]) {
      expect(inputs).toContain(reached)
    }
    expect(inputs.some((p) => p.startsWith("node_modules/@noir-lang/acvm_js/web/"))).toBe(true)
  }, 60_000)

  it("has no node:* import from the page's client, nor bb.js or noir_js", async () => {
    const { inputs, nodeImports } = await graph(CLIENT_ENTRY)
    expect(nodeImports).toEqual([])
    expect(inputs.filter((p) => NODE_ONLY.includes(p))).toEqual([])
    expect(inputs.filter((p) => p.includes("@aztec/") || p.includes("@noir-lang/"))).toEqual([])
  }, 60_000)
})
