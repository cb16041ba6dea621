// The proving CRS this service hands the console: bb's two files from CRS_DIR, checked with the rule the client
// proves by (Domain/Crs.ts), so that a page is never given a CRS its prover would refuse, and a deployment on testnet
// or the public network never starts with a test CRS it could not prove with.
import { ConfigError, Either, Option } from "effect"
import { createHash } from "node:crypto"
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs"
import * as Path from "node:path"
import { checkCrs, CRS_DIR_VARIABLE, type CrsBytes, G1_FILE, G2_FILE } from "../Domain/Crs.ts"

/** One file as served: its checked bytes and their strong ETag. */
export interface CrsFile {
  readonly bytes: Uint8Array
  /** `"<sha256 of the bytes, hex>"`, quotes included. */
  readonly etag: string
}

export interface InstalledCrs {
  readonly kind: "ignition" | "test"
  readonly points: number
  readonly g1: CrsFile
  readonly g2: CrsFile
}

type Found =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Unreadable"; readonly reason: string }
  | { readonly _tag: "Read"; readonly bytes: Uint8Array }

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** The served bytes are the file's, or for a longer Ignition file its checked prefix. */
const crsFile = (served: Uint8Array, file: Uint8Array, fileSha256: string): CrsFile => ({
  bytes: served,
  etag: `"${served.length === file.length ? fileSha256 : sha256(served)}"`
})

const find = (path: string): Found => {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === "ENOENT" ? { _tag: "Absent" } : { _tag: "Unreadable", reason: (error as Error).message }
  }
  try {
    if (!fstatSync(fd).isFile()) return { _tag: "Unreadable", reason: `${path} is not a file` }
    return { _tag: "Read", bytes: new Uint8Array(readFileSync(fd)) }
  } catch (error) {
    return { _tag: "Unreadable", reason: (error as Error).message }
  } finally {
    closeSync(fd)
  }
}

const refused = (dir: string, reason: string) => Either.left(ConfigError.InvalidData([CRS_DIR_VARIABLE], `${CRS_DIR_VARIABLE} (${dir}): ${reason}`))

/**
 * The start reads the settings twice (Server/Launch.ts all of them first, then this feature's layer): the check, a
 * pairing and every point on the curve for a test CRS (a quarter of a second at 32,769 points), runs once for the
 * same bytes on the same network.
 */
let lastChecked: { readonly key: string; readonly crs: InstalledCrs } | undefined

const checked = (dir: string, crs: CrsBytes, networkPassphrase: string): Either.Either<InstalledCrs, ConfigError.ConfigError> => {
  const digests = { g1: sha256(crs.g1), g2: sha256(crs.g2) }
  const key = `${networkPassphrase}\n${digests.g1}\n${digests.g2}`
  if (lastChecked?.key === key) return Either.right(lastChecked.crs)
  const outcome = checkCrs(crs, networkPassphrase)
  if (Either.isLeft(outcome)) {
    const { message, reason } = outcome.left
    const hint = reason === "TestCrsOnPublicNetwork" ? " (npm run crs fetches them; a test CRS is for a standalone NETWORK_PASSPHRASE only)" : ""
    return refused(dir, `${message}${hint}`)
  }
  const { g1, g2, kind, points } = outcome.right
  const installed: InstalledCrs = { kind, points, g1: crsFile(g1, crs.g1, digests.g1), g2: crsFile(g2, crs.g2, digests.g2) }
  lastChecked = { key, crs: installed }
  return Either.right(installed)
}

/**
 * What CRS_DIR holds: nothing (neither file: the service starts without one, proving being the client's), or both
 * files, checked against the network. One file without the other, a file that cannot be read or a CRS the check
 * refuses is a refused setting, named CRS_DIR.
 */
export const installedCrs = (dir: string, networkPassphrase: string): Either.Either<Option.Option<InstalledCrs>, ConfigError.ConfigError> => {
  const g1 = find(Path.join(dir, G1_FILE))
  const g2 = find(Path.join(dir, G2_FILE))
  if (g1._tag === "Absent" && g2._tag === "Absent") return Either.right(Option.none())
  const bytesOf = (file: string, other: string, found: Found) =>
    found._tag === "Read"
      ? Either.right(found.bytes)
      : found._tag === "Absent"
      ? refused(dir, `${other} is there but ${file} is not: install both (npm run crs), or neither`)
      : refused(dir, `${file} cannot be read (${found.reason})`)
  return Either.all({ g1: bytesOf(G1_FILE, G2_FILE, g1), g2: bytesOf(G2_FILE, G1_FILE, g2) }).pipe(
    Either.flatMap((crs) => checked(dir, crs, networkPassphrase)),
    Either.map(Option.some)
  )
}
