// Grumpkin (y^2 = x^3 - 17 over Fr, prime order q) through noble's short-Weierstrass points, with lib.nr's generators.
// Points cross the contract boundary as be(x) ‖ be(y), 64 bytes, and the identity as 64 zero bytes (storage.rs
// append_point; stellar-contract-utils crypto/grumpkin.rs Point).
import { weierstrass, type WeierstrassPoint } from "@noble/curves/abstract/weierstrass.js"
import { concatBytes } from "@noble/curves/utils.js"
import { InvalidEncoding } from "../Errors.ts"
import { Fr, Q, R, fieldFromBytes, fieldToBytes, fieldToHex } from "./Field.ts"

export type GrumpkinPoint = WeierstrassPoint<bigint>

// circuits/lib/src/lib.nr G and H: Barretenberg's derive_generators("DEFAULT_DOMAIN_SEPARATOR") indices 0 and 1.
// Grumpkin has prime order, so G serves as noble's base point (it gets the precomputed multiplication table).
const Gx = 0x083e7911d835097629f0067531fc15cafd79a89beecb39903f69572c636f4a5an
const Gy = 0x1a7f5efaad7f315c25a918f30cc8d7333fccab7ad7c90f14de81bcc528f9935dn
const Hx = 0x054aa86a73cb8a34525e5bbed6e43ba1198e860f5f3950268f71df4591bde402n
const Hy = 0x209dcfbf2cfb57f9f6046f44d71ac6faf87254afc7407c04eb621a6287cac126n

export const Point = weierstrass({ p: R, n: Q, h: 1n, a: 0n, b: Fr.neg(17n), Gx, Gy }, { Fp: Fr })

export const G: GrumpkinPoint = Point.BASE
export const H: GrumpkinPoint = Point.fromAffine({ x: Hx, y: Hy })
H.assertValidity()
H.precompute(8, false)

/**
 * k·P for a scalar k in [0, q). Noir's EmbeddedCurveScalar::from_field takes the Field's integer as is (r < q), so a
 * Field v multiplies as the integer v; zero gives the identity (a zero blinding is legitimate: deposits, SDK.md §4.4).
 */
export const scalarMul = (k: bigint, p: GrumpkinPoint): GrumpkinPoint => {
  if (k < 0n || k >= Q) throw new InvalidEncoding({ subject: "scalar", message: "scalar is outside [0, q)" })
  return k === 0n || p.is0() ? Point.ZERO : p.multiply(k)
}

/** Pedersen commitment v·G + r·H (lib.nr commit). */
export const commit = (value: bigint, blinding: bigint): GrumpkinPoint =>
  scalarMul(value, G).add(scalarMul(blinding, H))

/** Blindings add in Grumpkin's scalar field, mod q, never mod r (SDK.md §4.6: merges and receiving credits). */
export const addBlindings = (a: bigint, b: bigint): bigint => (a + b) % Q

export const isIdentity = (p: GrumpkinPoint): boolean => p.is0()

/** be(x) ‖ be(y); the identity is 64 zero bytes. */
export const pointToBytes = (p: GrumpkinPoint): Uint8Array => {
  if (p.is0()) return new Uint8Array(64)
  const { x, y } = p.toAffine()
  return concatBytes(fieldToBytes(x), fieldToBytes(y))
}

/** Decodes 64 bytes: canonical coordinates on the curve, or all zeros for the identity. */
export const pointFromBytes = (bytes: Uint8Array, subject = "point"): GrumpkinPoint => {
  if (bytes.length !== 64) throw new InvalidEncoding({ subject, message: `${subject} is not 64 bytes` })
  if (bytes.every((b) => b === 0)) return Point.ZERO
  return pointFromCoordinates(fieldFromBytes(bytes.subarray(0, 32), subject), fieldFromBytes(bytes.subarray(32), subject), subject)
}

export const pointFromCoordinates = (x: bigint, y: bigint, subject = "point"): GrumpkinPoint => {
  const p = Point.fromAffine({ x, y })
  try {
    p.assertValidity()
  } catch {
    throw new InvalidEncoding({ subject, message: `${subject} is not on Grumpkin` })
  }
  return p
}

/** Affine coordinates; the identity as (0, 0), the convention Noir and the contract share. */
export const coordinates = (p: GrumpkinPoint): { readonly x: bigint; readonly y: bigint } =>
  p.is0() ? { x: 0n, y: 0n } : p.toAffine()

/** A point as two witness entries `<name>_x`, `<name>_y` (Noir's main() takes points as coordinate pairs). */
export const pointInputs = <N extends string>(name: N, p: GrumpkinPoint) => {
  const { x, y } = coordinates(p)
  return { [`${name}_x`]: fieldToHex(x), [`${name}_y`]: fieldToHex(y) } as { readonly [K in `${N}_x` | `${N}_y`]: string }
}
