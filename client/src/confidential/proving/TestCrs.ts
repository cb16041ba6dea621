// A test CRS for standalone networks: [τ^i]G1 and [τ]G2 for a τ anyone can recompute, so it is worthless as a setup
// and only ever accepted off the public networks (Crs.ts). τ = sha256(TEST_CRS_LABEL) mod r
// = 0x1a8e542a4ad5955bf6880c133d6d0d13e5b011c66c5992b0d19a68bba262a8b.
import { bn254 } from "@noble/curves/bn254.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import type { CrsBytes } from "./Crs.ts"

export const TEST_CRS_LABEL = "confidential-payroll test CRS, tau v1 (public: never a setup)"

const r = bn254.fields.Fr.ORDER
export const TEST_CRS_TAU = sha256(utf8ToBytes(TEST_CRS_LABEL)).reduce((acc, b) => (acc << 8n) | BigInt(b), 0n) % r

const put = (out: Uint8Array, at: number, value: bigint) => {
  for (let i = 31, v = value; i >= 0; i--, v >>= 8n) out[at + i] = Number(v & 0xffn)
}

/**
 * `points` G1 points and the G2 point. About 0.35 ms a point on one core (a 2^12 window table for G1's generator,
 * which noble builds once in under a second), so the 32,769 points the transfer circuit needs take ~12 s.
 */
export const generateTestCrs = (points: number): CrsBytes => {
  const base = bn254.G1.Point.fromAffine(bn254.G1.Point.BASE.toAffine()).precompute(12, false)
  const g1 = new Uint8Array(points * 64)
  let power = 1n
  for (let i = 0; i < points; i++) {
    const { x, y } = base.multiply(power).toAffine()
    put(g1, i * 64, x)
    put(g1, i * 64 + 32, y)
    power = (power * TEST_CRS_TAU) % r
  }
  const { x, y } = bn254.G2.Point.BASE.multiply(TEST_CRS_TAU).toAffine()
  const g2 = new Uint8Array(128)
  ;[x.c0, x.c1, y.c0, y.c1].forEach((v, i) => put(g2, i * 32, v))
  return { g1, g2 }
}
