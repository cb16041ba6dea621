import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vite"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/**
 * The chunks loaded after sign-in (the typed client, the pages, the wallet) are fetched and compiled while the sign-in
 * page shows, not run: `<link rel="modulepreload">` in index.html. Running them (~0.3 s of the main thread) waits
 * until they are needed, so the first page is usable as soon as it is drawn.
 */
const preloadLaterChunks = (): Plugin => ({
  name: "console-preload-later-chunks",
  transformIndexHtml: {
    order: "post",
    handler: (_html, context) =>
      Object.values(context.bundle ?? {})
        .filter((output) => output.type === "chunk" && !output.isEntry)
        .map((chunk) => ({ tag: "link", attrs: { rel: "modulepreload", href: `/app/${chunk.fileName}` }, injectTo: "head" as const }))
  }
})

export default defineConfig({
  plugins: [preloadLaterChunks()],
  root: here("."),
  base: "/app/",
  logLevel: "warn",
  esbuild: { jsx: "automatic" },
  // The contract validates addresses with the SDK's StrKey (src/Domain/Stellar.ts); the page gets the same two checks
  // without the SDK (test/unit/console-strkey.test.ts holds them to it). Anything else taken from the SDK fails the build.
  // The console reaches the service through the typed client package only (.dependency-cruiser.cjs holds it): its
  // contract entry, without the payroll runners and their Stellar SDK, built from source like tsconfig.json's "paths".
  resolve: {
    alias: {
      "@stellar/stellar-sdk": here("src/lib/StrKey.ts"),
      "@confidential-payroll/client/contract": here("../client/src/Contract.ts")
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
