// The deterministic ephemeral scalar of an outgoing transfer (SELECTIVE_DISCLOSURE.md §7, §15.2, OpenZeppelin/
// stellar-contracts packages/tokens/src/confidential/docs at 8af46e2c): r_e = Poseidon2(δ_eph, vk, σ_E). The wallet
// recomputes it from its viewing key and the σ the event publishes, so a transfer made with it can be disclosed by its
// sender (D-sender) with nothing stored. circuits/disclosure/lib/src/seal.nr derive_ephemeral is the same function.
import { InvalidWitness } from "../Errors.ts"
import { poseidonWithDomain } from "./Poseidon2.ts"

/**
 * δ_eph. §2.2 adds the tag without a value; DESIGN_cont.md §13 numbers the token's tags 1-13 "sequentially from 1",
 * and the three disclosure tags continue it in §2.2's order (δ_disc 14, δ_disc_bind 15, δ_eph 16).
 */
export const EPHEMERAL_KEY = 16n

/** r_e for the transfer whose event nonce is σ_E (σ of a Transfer, σ_a of a SpenderTransfer), from the originator's vk. */
export const deriveEphemeralScalar = (vk: bigint, sigma: bigint): bigint => {
  const ephemeral = poseidonWithDomain(EPHEMERAL_KEY, [vk, sigma])
  // The transfer circuit refuses r_e = 0 (its R_e would be the identity); Poseidon2 reaching 0 is a preimage break.
  if (ephemeral === 0n) throw new InvalidWitness({ reason: "ZeroEphemeral", message: "the derived r_e is zero" })
  return ephemeral
}
