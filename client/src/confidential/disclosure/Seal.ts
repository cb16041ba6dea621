// The disclosure ciphertext to the recipient (SELECTIVE_DISCLOSURE.md §4): R_disc = r_disc·H, S_disc = r_disc·P_R,
// v_tilde_disc = value + Poseidon2(δ, S_disc.x, ν). §4 pads with S_disc.x itself, not the §2.4 ECDH scalar; both sides
// use the same formula, circuits/disclosure/lib/src/seal.nr on the prover's.
import { DecryptionFailed } from "../Errors.ts"
import { Fr } from "../crypto/Field.ts"
import { H, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import { requireKey, requireScalar } from "../crypto/Opening.ts"
import { poseidonWithDomain } from "../crypto/Poseidon2.ts"
import { sampleScalar, secureRandom, type RandomSource } from "../crypto/Scalar.ts"

/** What the disclosure recipient sends with its request (§2.1): its long-lived key and a fresh nonce. */
export interface DisclosureRequest {
  readonly recipientKey: GrumpkinPoint
  readonly nonce: bigint
}

export interface Sealed {
  readonly rDisc: GrumpkinPoint
  readonly vTildeDisc: bigint
}

const pad = (tag: bigint, shared: GrumpkinPoint, nonce: bigint) => poseidonWithDomain(tag, [shared.toAffine().x, nonce])

/** r_disc given (tests, replays) or drawn: nonzero, as the circuits require (a zero one makes the pad public). */
export const drawDisclosureScalar = (given: bigint | undefined, random: RandomSource = secureRandom): bigint =>
  requireScalar(given ?? sampleScalar(random, true), "r_disc", true)

export const seal = (tag: bigint, value: bigint, rDisc: bigint, request: DisclosureRequest): Sealed => {
  const recipientKey = requireKey(request.recipientKey, "disclosure recipient key")
  requireScalar(request.nonce, "nonce", false)
  return { rDisc: scalarMul(rDisc, H), vTildeDisc: Fr.add(value, pad(tag, scalarMul(rDisc, recipientKey), request.nonce)) }
}

/** The recipient's side (§5.3 step 6), with its secret r_R; `limit` bounds what a real disclosure can carry. */
export const openSeal = (tag: bigint, recipientSecret: bigint, sealed: Sealed, nonce: bigint, limit: bigint): bigint => {
  if (sealed.rDisc.is0()) throw new DecryptionFailed({ message: "R_disc is the identity" })
  const value = Fr.sub(sealed.vTildeDisc, pad(tag, scalarMul(recipientSecret, sealed.rDisc), nonce))
  if (value >= limit) throw new DecryptionFailed({ message: "the disclosure does not open under this key and nonce" })
  return value
}
