// Openings and the checks a witness builder makes before it builds anything: each failure is an InvalidWitness the
// circuit would otherwise answer with an unsatisfied constraint (or, for a bad key, an unsound proof).
import { InvalidWitness, type WitnessProblem } from "../Errors.ts"
import { AMOUNT_LIMIT, R } from "./Field.ts"
import type { GrumpkinPoint } from "./Grumpkin.ts"
import { sampleScalar, secureRandom, type RandomSource } from "./Scalar.ts"

/** (v, r) with C = v·G + r·H: exists only client-side (DESIGN.md §5.2). */
export interface Opening {
  readonly value: bigint
  readonly blinding: bigint
}

const fail = (reason: WitnessProblem, message: string): never => {
  throw new InvalidWitness({ reason, message })
}

/** An amount the circuits' 127-bit range check admits (SEP-41's non-negative i128). */
export const requireAmount = (amount: bigint): bigint =>
  amount >= 0n && amount < AMOUNT_LIMIT ? amount : fail("AmountOutOfRange", "amount is outside [0, 2^127)")

/**
 * A spendable opening the circuit can take: value in [0, 2^127), blinding a Field. Blindings add mod q, so after a
 * merge one can be >= r and no witness can express it until the next merge folds in a transfer (SDK.md §10.7).
 */
export const requireOpening = (opening: Opening): Opening => {
  if (opening.value < 0n || opening.value >= AMOUNT_LIMIT) fail("BalanceOutOfRange", "balance is outside [0, 2^127)")
  if (opening.blinding < 0n || opening.blinding >= R) fail("BlindingNotAField", "blinding is not a field element")
  return opening
}

/** A public key the circuits feed to ECDH: on Grumpkin and not the identity (lib.nr assert_on_curve_non_identity). */
export const requireKey = (point: GrumpkinPoint, subject: string): GrumpkinPoint => {
  if (point.is0()) fail("IdentityPoint", `${subject} is the identity`)
  try {
    point.assertValidity()
  } catch {
    fail("PointNotOnCurve", `${subject} is not on Grumpkin`)
  }
  return point
}

/** A Field-valued scalar supplied by the caller: canonical, and nonzero where the circuit says so (r_e != 0). */
export const requireScalar = (x: bigint, subject: string, nonZero: boolean): bigint => {
  if (x < 0n || x >= R) fail("ScalarOutOfRange", `${subject} is not a field element`)
  if (nonZero && x === 0n) fail("ZeroEphemeral", `${subject} is zero`)
  return x
}

/** The per-attempt randomness of an owner operation: given (tests, replays) or fresh (DESIGN.md §2.2, SDK.md §10.4). */
export interface Randomness {
  /** r_e, the ephemeral ECDH scalar. */
  readonly ephemeral?: bigint
  readonly sigma?: bigint
  readonly random?: RandomSource
}

export const drawRandomness = ({ ephemeral, sigma, random = secureRandom }: Randomness) => ({
  ephemeral: requireScalar(ephemeral ?? sampleScalar(random, true), "r_e", true),
  sigma: requireScalar(sigma ?? sampleScalar(random, false), "sigma", false)
})
