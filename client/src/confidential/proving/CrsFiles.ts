// The CRS as files, for Node: the directory bb itself reads (bn254_g1.dat, bn254_g2.dat). Kept apart from Crs.ts so
// the browser entry imports no node:*.
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { CrsMissing } from "../Errors.ts"
import { checkCrs, CRS_DIR_VARIABLE, type CrsBytes } from "./Crs.ts"
import { generateTestCrs } from "./TestCrs.ts"

export const G1_FILE = "bn254_g1.dat"
export const G2_FILE = "bn254_g2.dat"
export const STANDALONE_PASSPHRASE = "Standalone Network ; February 2017"

/** CRS_DIR, else DATA_DIR/crs, else ./.data/crs. */
export const crsDirFromEnv = (env: NodeJS.ProcessEnv = process.env): string =>
  Path.resolve(env[CRS_DIR_VARIABLE] ?? Path.join(env["DATA_DIR"] ?? ".data", "crs"))

export const readCrsDir = Effect.fn("Confidential.readCrsDir")(function* (dir: string) {
  const read = (file: string) =>
    Effect.try({
      try: () => new Uint8Array(readFileSync(Path.join(dir, file))),
      catch: () =>
        new CrsMissing({ message: `no ${file} in ${dir}: set ${CRS_DIR_VARIABLE} to a directory with bn254_g1.dat and bn254_g2.dat (npm run crs)` })
    })
  return { g1: yield* read(G1_FILE), g2: yield* read(G2_FILE) } satisfies CrsBytes
})

export const loadCrsDir = (dir: string, networkPassphrase: string) => Effect.flatMap(readCrsDir(dir), (crs) => checkCrs(crs, networkPassphrase))

/**
 * Written beside and renamed, so a reader never sees half a file; each writer has a partial file of its own, so test
 * processes making the same cache at once cannot mix their bytes.
 */
export const writeCrsDir = (dir: string, crs: CrsBytes): void => {
  mkdirSync(dir, { recursive: true })
  for (const [file, bytes] of [[G1_FILE, crs.g1], [G2_FILE, crs.g2]] as const) {
    const partial = Path.join(dir, `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`)
    writeFileSync(partial, bytes)
    renameSync(partial, Path.join(dir, file))
  }
}

/**
 * A CRS of at least `points` points in `dir`: what is there when it passes the check (Ignition's files are never
 * overwritten), else a test CRS made and written. `made` says which, so a caller can report the time it took.
 */
export const ensureTestCrs = Effect.fn("Confidential.ensureTestCrs")(function* (dir: string, points: number) {
  if (existsSync(Path.join(dir, G1_FILE))) {
    const cached = yield* loadCrsDir(dir, STANDALONE_PASSPHRASE).pipe(Effect.option)
    if (cached._tag === "Some" && cached.value.points >= points) return { crs: cached.value, made: false }
  }
  const bytes = generateTestCrs(points)
  writeCrsDir(dir, bytes)
  return { crs: yield* checkCrs(bytes, STANDALONE_PASSPHRASE), made: true }
})
