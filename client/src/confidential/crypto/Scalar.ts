// The rejection sampling of DESIGN.md §2.2 (8af46e2c): 32 bytes, top 2 bits cleared (a 254-bit big-endian
// candidate), rejected when >= r (or zero where the call site needs nonzero). Used for r_e and sigma, and by the key
// derivation on HKDF output (SDK.md §5.1 "RS").
import { bytesToNumberBE } from "@noble/curves/utils.js"
import { InvalidWitness } from "../Errors.ts"
import { R } from "./Field.ts"

/** Fills `out` with cryptographically secure bytes and returns it (the shape of crypto.getRandomValues). */
export type RandomSource = (out: Uint8Array) => Uint8Array

/** The platform CSPRNG (Web Crypto, in browsers and Node alike); there is no non-CSPRNG fallback (SDK.md §13). */
// (The DOM's typing asks for a view over an ArrayBuffer, never a SharedArrayBuffer; the bytes are filled in place.)
export const secureRandom: RandomSource = (out) => {
  globalThis.crypto.getRandomValues(out as Uint8Array<ArrayBuffer>)
  return out
}

/** The candidate 32 bytes encode after clearing their top 2 bits, or undefined when it is not in [1, r) / [0, r). */
export const candidateScalar = (bytes: Uint8Array, nonZero: boolean): bigint | undefined => {
  const masked = Uint8Array.from(bytes)
  masked[0] = masked[0]! & 0x3f
  const x = bytesToNumberBE(masked)
  masked.fill(0)
  return x >= R || (nonZero && x === 0n) ? undefined : x
}

// A draw is rejected with probability about 1/4; 128 rejections in a row mean a broken source, not bad luck.
const MAX_DRAWS = 128

/** A uniform Fr element (nonzero when asked) from `random`. */
export const sampleScalar = (random: RandomSource = secureRandom, nonZero = true): bigint => {
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const x = candidateScalar(random(new Uint8Array(32)), nonZero)
    if (x !== undefined) return x
  }
  throw new InvalidWitness({ reason: "ScalarOutOfRange", message: "the random source gave no usable scalar" })
}
