// The proving CRS this service hands the console: bb's two files from CRS_DIR, checked with the rule the client
// proves by (Domain/Crs.ts), so that a page is never given a CRS its prover would refuse, nor a verifier would.
import { ConfigError, Either } from "effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { checkCrs, CRS_DIR_VARIABLE, type CrsBytes, G1_FILE, G2_FILE, IGNITION_G1_SHA256 } from "../Domain/Crs.ts"

/** One file as served: its checked bytes and their strong ETag. */
export interface CrsFile {
  readonly bytes: Uint8Array
  /** `"<sha256 of the bytes, hex>"`, quotes included. */
  readonly etag: string
}

export interface InstalledCrs {
  readonly points: number
  readonly g1: CrsFile
  readonly g2: CrsFile
}

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const refusal = (dir: string, reason: string) => ConfigError.InvalidData([CRS_DIR_VARIABLE], `${CRS_DIR_VARIABLE} (${dir}): ${reason}`)
const refused = (dir: string, reason: string) => Either.left(refusal(dir, reason))

const read = (dir: string, file: string): Either.Either<Uint8Array, ConfigError.ConfigError> => {
  try {
    return Either.right(new Uint8Array(readFileSync(Path.join(dir, file))))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return refused(dir, code === "ENOENT" ? `there is no ${file}` : `${file} cannot be read (${(error as Error).message})`)
  }
}

/**
 * The start reads the settings twice (Server/Launch.ts all of them first, then this feature's layer): the files are
 * read and hashed once for the same directory.
 */
let lastChecked: { readonly dir: string; readonly crs: InstalledCrs } | undefined

/** Both files of `dir`, checked: a missing or unreadable file, or a CRS that is not Ignition's, is a refused CRS_DIR. */
export const installedCrs = (dir: string): Either.Either<InstalledCrs, ConfigError.ConfigError> => {
  if (lastChecked?.dir === dir) return Either.right(lastChecked.crs)
  return Either.all({ g1: read(dir, G1_FILE), g2: read(dir, G2_FILE) }).pipe(
    Either.flatMap((crs: CrsBytes) => Either.mapLeft(checkCrs(crs, sha256Hex), ({ message }) => refusal(dir, message))),
    Either.map(({ g1, g2, points }) => {
      // The check hashed the G1 prefix: once checked, its digest is the pin.
      const installed: InstalledCrs = { points, g1: { bytes: g1, etag: `"${IGNITION_G1_SHA256}"` }, g2: { bytes: g2, etag: `"${sha256Hex(g2)}"` } }
      lastChecked = { dir, crs: installed }
      return installed
    })
  )
}
