// The CRS as files, for Node: the directory bb itself reads (bn254_g1.dat, bn254_g2.dat). Kept apart from Crs.ts so
// the browser entry imports no node:*.
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { CrsMissing } from "../Errors.ts"
import { checkCrs, CRS_DIR_VARIABLE, type CrsBytes } from "./Crs.ts"

export const G1_FILE = "bn254_g1.dat"
export const G2_FILE = "bn254_g2.dat"
export const STANDALONE_PASSPHRASE = "Standalone Network ; February 2017"

/**
 * Aztec Ignition's prefix as the package carries it (client/crs, beside circuits/): the same two levels up from
 * src/confidential/proving as from the built dist/client/src/confidential/proving's package root.
 */
export const BUNDLED_CRS_DIR = fileURLToPath(new URL(import.meta.url.includes("/dist/client/src/") ? "../../../../../crs" : "../../../crs", import.meta.url))

/** CRS_DIR, else the CRS the package carries. */
export const crsDirFromEnv = (env: NodeJS.ProcessEnv = process.env): string => Path.resolve(env[CRS_DIR_VARIABLE] ?? BUNDLED_CRS_DIR)

export const readCrsDir = Effect.fn("Confidential.readCrsDir")(function* (dir: string) {
  const read = (file: string) =>
    Effect.try({
      try: () => new Uint8Array(readFileSync(Path.join(dir, file))),
      catch: () =>
        new CrsMissing({ message: `no ${file} in ${dir}: set ${CRS_DIR_VARIABLE} to a directory with Aztec Ignition's bn254_g1.dat and bn254_g2.dat, or unset it to use the package's own` })
    })
  return { g1: yield* read(G1_FILE), g2: yield* read(G2_FILE) } satisfies CrsBytes
})

/** The CRS in `dir` (by default the package's), checked against Ignition's pins. */
export const loadCrsDir = (dir: string = BUNDLED_CRS_DIR) => Effect.flatMap(readCrsDir(dir), checkCrs)
