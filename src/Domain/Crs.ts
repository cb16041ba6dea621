// BN254's structured reference string in bb's layout, and the rule that decides whether proofs may be made with it:
// the service checks the CRS it serves with it (src/Crs/), the confidential client the one it proves with
// (client/src/confidential/proving/Crs.ts wraps it in an Effect). A rule of the contract, so it lives here, where both
// may import it. Browser-safe: bytes in, no node:*.
//
// bn254_g1.dat: 64 bytes a point ([τ^i]G1, x then y, 32-byte big-endian); bn254_g2.dat: [τ]G2 as x.c0, x.c1, y.c0, y.c1.
// The only CRS accepted is the prefix of Aztec's Ignition transcript, the one OZ's verification keys were made with
// (client/crs/README.md): its first 32,769 G1 points hash to IGNITION_G1_SHA256, the pin public bb.js 0.87 clients
// bundle, and its G2 point is the one the on-chain verifier pairs against. Any other CRS makes proofs no deployment
// accepts, so none is.
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js"
import { Data, Either } from "effect"

export const IGNITION_POINTS = 32_769
export const IGNITION_G1_SHA256 = "d769ac6c98f8fab858a7e9967f2b7f181d8ad9fdcdf55438c915696febf0e99c"
export const IGNITION_G2 = hexToBytes(
  "0118c4d5b837bcc2bc89b5b398b5974e9f5944073b32078b7e231fec938883b0" +
    "260e01b251f6f1c7e7ff4e580791dee8ea51d87a358e038b4efe30fac09383c1" +
    "22febda3c0c0632a56475b4214e5615e11e6dd3f96e6cea2854a87d4dacc5e55" +
    "04fc6369f7110fe3d25156c1bb9a72859cf2a04641f99ba4ee413c80da6a5fe4"
)

export const CRS_DIR_VARIABLE = "CRS_DIR"
export const G1_FILE = "bn254_g1.dat"
export const G2_FILE = "bn254_g2.dat"

export interface CrsBytes {
  readonly g1: Uint8Array
  readonly g2: Uint8Array
}

export interface CheckedCrs extends CrsBytes {
  /** G1 points in `g1` (a circuit of dyadic size n needs n + 1): Ignition's prefix, IGNITION_POINTS. */
  readonly points: number
}

/** A CRS that is not in bb's layout, or not Aztec Ignition's. */
export class CrsRefused extends Data.TaggedError("CrsRefused")<{
  readonly reason: "Malformed" | "NotIgnition"
  readonly message: string
}> {}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i])

const refused = (reason: CrsRefused["reason"], message: string) => Either.left(new CrsRefused({ reason, message }))

/** SHA-256 as lowercase hex: noble's in a browser, node:crypto's where there is one (several times faster). */
export type Sha256Hex = (bytes: Uint8Array) => string

const nobleSha256: Sha256Hex = (bytes) => bytesToHex(sha256(bytes))

/**
 * Aztec Ignition's prefix, recognised by its pins; a longer G1 file is cut to the prefix. Anything else is refused,
 * naming the file that differs.
 */
export const checkCrs = (crs: CrsBytes, sha256Hex: Sha256Hex = nobleSha256): Either.Either<CheckedCrs, CrsRefused> => {
  if (crs.g1.length % 64 !== 0 || crs.g2.length !== 128) {
    return refused("Malformed", `the CRS files are not in bb's layout (${crs.g1.length} G1 bytes, ${crs.g2.length} G2 bytes)`)
  }
  const ignitionBytes = IGNITION_POINTS * 64
  const g1 = crs.g1.subarray(0, ignitionBytes)
  const g1Differs = crs.g1.length < ignitionBytes || sha256Hex(g1) !== IGNITION_G1_SHA256
  const g2Differs = !sameBytes(crs.g2, IGNITION_G2)
  if (g1Differs || g2Differs) {
    const files = [g1Differs ? `${G1_FILE} (its first ${IGNITION_POINTS} points, sha256 ${IGNITION_G1_SHA256})` : undefined, g2Differs ? G2_FILE : undefined]
    return refused(
      "NotIgnition",
      `${files.filter((f) => f !== undefined).join(" and ")} ${g1Differs && g2Differs ? "are" : "is"} not Aztec Ignition's: ` +
        `proofs over another CRS are refused by every verifier holding OZ's keys (point ${CRS_DIR_VARIABLE} at a copy of ` +
        `Ignition's files, or leave it unset for the project's own, client/crs)`
    )
  }
  return Either.right({ points: IGNITION_POINTS, g1, g2: crs.g2 })
}
