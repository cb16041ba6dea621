// Fr, the BN254 scalar field: Noir's `Field`, the Soroban host's `Bn254Fr`, Grumpkin's coordinate field. A value
// crosses every boundary as 32 big-endian bytes and must be canonical (< r): the host reduces x and x + r to the same
// element, so the contract rejects non-canonical bytes (storage.rs append_field / append_point, DESIGN.md §2.2).
import { Field } from "@noble/curves/abstract/modular.js"
import { bytesToHex, bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js"
import { InvalidEncoding } from "../Errors.ts"

/** r, the BN254 scalar field modulus. */
export const R = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n

/** q, the BN254 base field modulus: Grumpkin's group order (q > r, so every Fr value is a valid scalar). */
export const Q = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n

/** Fr arithmetic (noble's prime field). */
export const Fr = Field(R)

/** Values and amounts are i128-non-negative: [0, 2^127) (DESIGN.md §2.6, the circuits' assert_max_bit_size::<127>). */
export const AMOUNT_LIMIT = 1n << 127n

export const isCanonical = (v: bigint): boolean => v >= 0n && v < R

const requireCanonical = (v: bigint, subject: string): bigint => {
  if (!isCanonical(v)) throw new InvalidEncoding({ subject, message: `${subject} is not a canonical field element` })
  return v
}

/** 32 big-endian bytes of a canonical field element. */
export const fieldToBytes = (v: bigint): Uint8Array => numberToBytesBE(requireCanonical(v, "field"), 32)

export const fieldFromBytes = (bytes: Uint8Array, subject = "field"): bigint => {
  if (bytes.length !== 32) throw new InvalidEncoding({ subject, message: `${subject} is not 32 bytes` })
  return requireCanonical(bytesToNumberBE(bytes), subject)
}

/** "0x" + 64 hex digits: how the witness map (noir_js InputMap) takes a Field. */
export const fieldToHex = (v: bigint): string => `0x${bytesToHex(fieldToBytes(v))}`

/** Any "0x" hex spelling of a canonical value (the fixtures write short forms such as "0x3e8"). */
export const fieldFromHex = (hex: string, subject = "field"): bigint => {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(hex)) throw new InvalidEncoding({ subject, message: `${subject} is not 0x-hex` })
  return requireCanonical(BigInt(hex), subject)
}
