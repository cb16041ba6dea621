import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin, type Rollup } from "vite"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/**
 * Folders whose modules a page loads with import() only when it needs them: their chunks (the wallet's: the Stellar
 * SDK, the confidential client, the sealing, the escrow key, selective disclosure) are never fetched ahead, only when
 * a contractor registers, a member seals amounts, an auditor opens the escrow key or a recipient verifies a bundle.
 */
const ON_DEMAND = [here("src/confidential/"), here("src/sealing/"), here("src/escrow/"), here("src/disclosure/")]

/**
 * The chunks loaded after sign-in (the typed client, the pages, the wallet) are fetched and compiled while the sign-in
 * page shows, not run: `<link rel="modulepreload">` in index.html. Running them (~0.3 s of the main thread) waits
 * until they are needed, so the first page is usable as soon as it is drawn. A chunk that only an import() of an
 * ON_DEMAND module reaches (that module's chunk, and what only it loads) is left out.
 */
const preloadLaterChunks = (): Plugin => {
  const onDemand = new Set<string>()
  return {
    name: "console-preload-later-chunks",
    renderStart() {
      for (const id of this.getModuleIds()) {
        if (ON_DEMAND.some((dir) => id.startsWith(dir)) && (this.getModuleInfo(id)?.dynamicImporters.length ?? 0) > 0) onDemand.add(id)
      }
    },
    transformIndexHtml: {
      order: "post",
      handler: (_html, context) => {
        const chunks = new Map<string, Rollup.OutputChunk>()
        for (const output of Object.values(context.bundle ?? {})) if (output.type === "chunk") chunks.set(output.fileName, output)
        const reached = new Set<string>()
        const reach = (name: string, dynamic: boolean) => {
          const chunk = chunks.get(name)
          if (chunk === undefined || reached.has(name) || (dynamic && chunk.moduleIds.some((id) => onDemand.has(id)))) return
          reached.add(name)
          for (const next of chunk.imports) reach(next, false)
          for (const next of chunk.dynamicImports) reach(next, true)
        }
        for (const chunk of chunks.values()) if (chunk.isEntry) reach(chunk.fileName, false)
        return [...reached]
          .filter((name) => chunks.get(name)?.isEntry === false)
          .map((name) => ({ tag: "link", attrs: { rel: "modulepreload", href: `/app/${name}` }, injectTo: "head" as const }))
      }
    }
  }
}

/**
 * bb.js and noir_js run in the prover's Web Worker (dist/prover, scripts/build-prover.ts), never on a page: the
 * confidential client's entry names them (its Node prover), so the page's bundle takes a stub that fails if reached,
 * instead of their code, their wasm and bb's worker scripts.
 */
const PROVER_ONLY = new Set(["@aztec/bb.js", "@noir-lang/noir_js"])
const proverOnlyOnTheWorker = (): Plugin => ({
  name: "console-prover-only-on-the-worker",
  enforce: "pre",
  resolveId: (source) => (PROVER_ONLY.has(source) ? `\0prover-only:${source}` : null),
  load: (id) =>
    id.startsWith("\0prover-only:")
      ? `export class Noir { constructor() { throw new Error("${id.slice("\0prover-only:".length)} runs in the prover's worker, not on the page") } }\n`
      : null
})

/**
 * The contract validates addresses with the SDK's StrKey (src/Domain/Stellar.ts); for the contract the page gets the
 * same two checks without the SDK (test/unit/console-strkey.test.ts holds them to it), so the first page does not carry
 * it. Everything else that names the SDK — the sealing and confidential client, loaded only with import() — gets the
 * real one, in the chunks that load it.
 */
const sdkStubForTheContract = (): Plugin => ({
  name: "console-sdk-stub-for-the-contract",
  enforce: "pre",
  resolveId: (source, importer) =>
    source === "@stellar/stellar-sdk" && importer !== undefined && importer.startsWith(here("../src/")) ? here("src/lib/StrKey.ts") : null
})

export default defineConfig({
  plugins: [sdkStubForTheContract(), proverOnlyOnTheWorker(), preloadLaterChunks()],
  root: here("."),
  base: "/app/",
  logLevel: "warn",
  esbuild: { jsx: "automatic" },
  // The console reaches the service through the typed client package only (.dependency-cruiser.cjs holds it): its
  // contract entry, without the payroll runners and their Stellar SDK, built from source like tsconfig.json's "paths".
  resolve: {
    alias: {
      "@confidential-payroll/client/contract": here("../client/src/Contract.ts"),
      "@confidential-payroll/client/sealing": here("../client/src/sealing/index.ts"),
      "@confidential-payroll/client/confidential": here("../client/src/confidential/index.ts"),
      "@confidential-payroll/client/escrow": here("../client/src/escrow/index.ts")
    }
  },
  build: {
    outDir: here("../dist/console"),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // The design system bundles lodash and loads it at the top of its one module; only its Table and Pagination use
      // it, and the console uses neither: marked pure, the call (and lodash, ~25 KB gzipped) is left out.
      treeshake: { manualPureFunctions: ["requireLodash"] },
      // TanStack Query marks its React modules "use client" (for server components): meaningless in a browser bundle.
      onwarn: (warning, warn) => {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning)
      }
    }
  }
})
