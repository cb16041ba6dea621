// BN254's structured reference string in bb's layout, and the rule that decides whether proofs may be made with it:
// the service checks the CRS it serves with it (src/Crs/), the confidential client the one it proves with
// (client/src/confidential/proving/Crs.ts wraps it in an Effect). A rule of the contract, so it lives here, where both
// may import it. Browser-safe: bytes in, no node:*.
//
// bn254_g1.dat: 64 bytes a point ([τ^i]G1, x then y, 32-byte big-endian); bn254_g2.dat: [τ]G2 as x.c0, x.c1, y.c0, y.c1.
// The real one is the prefix of Aztec's Ignition transcript: its first 32,769 G1 points hash to IGNITION_G1_SHA256,
// the pin public bb.js 0.87 clients bundle, and its G2 point is the one the on-chain verifier pairs against.
import { bn254 } from "@noble/curves/bn254.js"
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

/** The networks whose verifiers hold keys made with the real CRS: a test CRS cannot make a proof they accept. */
export const PUBLIC_NETWORKS: ReadonlyArray<string> = ["Public Global Stellar Network ; September 2015", "Test SDF Network ; September 2015"]

export const CRS_DIR_VARIABLE = "CRS_DIR"
export const G1_FILE = "bn254_g1.dat"
export const G2_FILE = "bn254_g2.dat"

export interface CrsBytes {
  readonly g1: Uint8Array
  readonly g2: Uint8Array
}

export interface CheckedCrs extends CrsBytes {
  readonly kind: "ignition" | "test"
  /** G1 points in `g1` (a circuit of dyadic size n needs n + 1). */
  readonly points: number
}

/** A CRS that failed its check (hash pin, pairing, curve), or a test CRS offered for a public network's verifier. */
export class CrsRefused extends Data.TaggedError("CrsRefused")<{
  readonly reason: "Malformed" | "PairingFailed" | "TestCrsOnPublicNetwork" | "MixedFiles"
  readonly message: string
}> {}

const Fp = bn254.fields.Fp
const be = (bytes: Uint8Array, at: number): bigint => bytes.subarray(at, at + 32).reduce((acc, b) => (acc << 8n) | BigInt(b), 0n)

const g1Point = (g1: Uint8Array, i: number) => bn254.G1.Point.fromAffine({ x: be(g1, i * 64), y: be(g1, i * 64 + 32) })

const g2Point = (g2: Uint8Array) =>
  bn254.G2.Point.fromAffine({ x: { c0: be(g2, 0), c1: be(g2, 32) }, y: { c0: be(g2, 64), c1: be(g2, 96) } })

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i])

/** bn254 G1 has cofactor 1, so a point on the curve is in the group: random corruption lands off it. */
const allOnCurve = (g1: Uint8Array, points: number): boolean => {
  for (let i = 0; i < points; i++) {
    const x = be(g1, i * 64)
    const y = be(g1, i * 64 + 32)
    if (x >= Fp.ORDER || y >= Fp.ORDER || !Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.sqr(x), x), 3n))) return false
  }
  return true
}

/** [τ^i]G1 and [τ]G2 share one τ: e(G1[1], G2) = e(G1[0], [τ]G2) and e(G1[2], G2) = e(G1[1], [τ]G2), G1[0] = G1. */
const pairingHolds = (crs: CrsBytes): boolean => {
  try {
    const tauG2 = g2Point(crs.g2)
    tauG2.assertValidity()
    const [p0, p1, p2] = [0, 1, 2].map((i) => g1Point(crs.g1, i))
    if (p0 === undefined || p1 === undefined || p2 === undefined || !p0.equals(bn254.G1.Point.BASE)) return false
    const G2 = bn254.G2.Point.BASE
    const eq = (a: ReturnType<typeof bn254.pairing>, b: ReturnType<typeof bn254.pairing>) => bn254.fields.Fp12.eql(a, b)
    return eq(bn254.pairing(p1, G2), bn254.pairing(p0, tauG2)) && eq(bn254.pairing(p2, G2), bn254.pairing(p1, tauG2))
  } catch {
    return false
  }
}

const refused = (reason: CrsRefused["reason"], message: string) => Either.left(new CrsRefused({ reason, message }))

/**
 * The Ignition prefix is accepted anywhere by its hashes. Any other CRS is a test CRS: refused for the public
 * networks, and elsewhere used as given once its pairing and its points check out.
 */
export const checkCrs = (crs: CrsBytes, networkPassphrase: string): Either.Either<CheckedCrs, CrsRefused> => {
  if (crs.g1.length % 64 !== 0 || crs.g1.length < 3 * 64 || crs.g2.length !== 128) {
    return refused("Malformed", `the CRS files are not in bb's layout (${crs.g1.length} G1 bytes, ${crs.g2.length} G2 bytes)`)
  }
  const ignitionBytes = IGNITION_POINTS * 64
  const ignitionG1 = crs.g1.length >= ignitionBytes && bytesToHex(sha256(crs.g1.subarray(0, ignitionBytes))) === IGNITION_G1_SHA256
  const ignitionG2 = sameBytes(crs.g2, IGNITION_G2)
  if (ignitionG1 && ignitionG2) return Either.right({ kind: "ignition", points: IGNITION_POINTS, g1: crs.g1.subarray(0, ignitionBytes), g2: crs.g2 })
  if (ignitionG1 || ignitionG2) return refused("MixedFiles", "one CRS file is Aztec Ignition's and the other is not")
  if (PUBLIC_NETWORKS.includes(networkPassphrase)) {
    return refused(
      "TestCrsOnPublicNetwork",
      `a test CRS cannot make proofs the "${networkPassphrase}" verifier accepts: point ${CRS_DIR_VARIABLE} at a directory ` +
        `with Aztec Ignition's bn254_g1.dat (its first ${IGNITION_POINTS} points, sha256 ${IGNITION_G1_SHA256}) and bn254_g2.dat`
    )
  }
  const points = crs.g1.length / 64
  if (!pairingHolds(crs) || !allOnCurve(crs.g1, points)) {
    return refused("PairingFailed", `the test CRS in ${CRS_DIR_VARIABLE} fails its pairing check: regenerate it (npm run crs)`)
  }
  return Either.right({ kind: "test", points, g1: crs.g1, g2: crs.g2 })
}
