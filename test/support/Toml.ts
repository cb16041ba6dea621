import { createRequire } from "node:module"

/**
 * stellar.toml read with the parser SDF's validator (`@stellar/anchor-tests`) uses: `toml` 3 (TOML 0.4), stricter than
 * the TOML 1.0 parser of the stellar-sdk that wallets use (test/wallet-sdk.test.ts reads it that way). The answer is
 * whatever the file holds; each caller names the shape it reads.
 */
export const parseToml: <A>(text: string) => A = (createRequire(import.meta.url)("toml") as {
  readonly parse: (text: string) => never
}).parse
