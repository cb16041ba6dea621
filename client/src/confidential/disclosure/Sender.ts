// D-sender (SELECTIVE_DISCLOSURE.md §7): the witness of circuits/disclosure/disclose_sender from the originator's keys,
// the event it emitted, the recipient's PVK_B (read at the event's `to`) and the request. r_e is the one the transfer
// was made with: by default the deterministic Poseidon2(δ_eph, vk, σ_E) of §15.2, else the one the wallet kept.
import { DecryptionFailed } from "../Errors.ts"
import type { TransferCiphertext } from "../crypto/Decrypt.ts"
import { deriveEphemeralScalar } from "../crypto/EphemeralScalar.ts"
import { AMOUNT_LIMIT } from "../crypto/Field.ts"
import { H, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"
import { requireKey } from "../crypto/Opening.ts"
import { ecdh, unmaskAmount } from "../crypto/Primitives.ts"
import type { RandomSource } from "../crypto/Scalar.ts"
import { DISCLOSURE } from "./Domain.ts"
import { type DisclosureWitness, eventFields, hex, named, sealFields, xy } from "./Inputs.ts"
import { type DisclosureRequest, drawDisclosureScalar, seal } from "./Seal.ts"

export const SENDER_PUBLIC = [
  "addr_f", "pvk_a_x", "pvk_a_y", "r_e_x", "r_e_y", "sigma_e", "v_tilde", "pvk_b_x", "pvk_b_y", "p_r_x", "p_r_y", "nu",
  "r_disc_x", "r_disc_y", "v_tilde_disc"
] as const

/** The amount an originator's event paid PVK_B, given the r_e it was made with (DS3-DS5, D5). */
export const sentAmount = (event: TransferCiphertext, recipientViewingKey: GrumpkinPoint, ephemeral: bigint): bigint => {
  if (!scalarMul(ephemeral, H).equals(event.ephemeralKey)) {
    throw new DecryptionFailed({ message: "the event's R_e is not r_e·H: the transfer was not made with this r_e" })
  }
  const amount = unmaskAmount(event.vTilde, ecdh(ephemeral, requireKey(recipientViewingKey, "recipient viewing key")), event.sigma)
  if (amount >= AMOUNT_LIMIT) throw new DecryptionFailed({ message: "the event did not pay this recipient key" })
  return amount
}

export interface SenderDisclosure {
  /** The originator's keys: `from` of a Transfer, `spender` of a SpenderTransfer. */
  readonly keys: ConfidentialKeys
  readonly event: TransferCiphertext
  readonly recipientViewingKey: GrumpkinPoint
  /** r_e when the wallet sampled and kept it; derived from (vk, σ_E) otherwise. */
  readonly ephemeral?: bigint
  readonly request: DisclosureRequest
  readonly rDisc?: bigint
  readonly random?: RandomSource
}

export const discloseSenderWitness = (d: SenderDisclosure): DisclosureWitness => {
  const { keys, event, request } = d
  const ephemeral = d.ephemeral ?? deriveEphemeralScalar(keys.vk, event.sigma)
  const amount = sentAmount(event, d.recipientViewingKey, ephemeral)
  const scalar = drawDisclosureScalar(d.rDisc, d.random)
  const sealed = seal(DISCLOSURE, amount, scalar, request)
  const publicInputs = [
    keys.addrF, ...xy(keys.viewingPublicKey), ...eventFields(event), ...xy(d.recipientViewingKey), ...xy(request.recipientKey),
    request.nonce, ...sealFields(sealed)
  ]
  return {
    inputs: {
      sk_a: hex(keys.sk), vk_a: hex(keys.vk), r_e: hex(ephemeral), v_tx: hex(amount), r_disc: hex(scalar),
      ...named(SENDER_PUBLIC, publicInputs)
    },
    publicInputs,
    value: amount,
    sealed
  }
}
