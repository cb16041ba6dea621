// D-recipient (SELECTIVE_DISCLOSURE.md §6): the witness of circuits/disclosure/disclose_recipient from the holder's keys,
// the event it received (R_e, σ_E, v_tilde as the chain emitted them) and the recipient's request.
import { decryptTransfer, type TransferCiphertext } from "../crypto/Decrypt.ts"
import type { ConfidentialKeys } from "../crypto/Keys.ts"
import type { RandomSource } from "../crypto/Scalar.ts"
import { DISCLOSURE } from "./Domain.ts"
import { type DisclosureWitness, eventFields, hex, named, sealFields, xy } from "./Inputs.ts"
import { type DisclosureRequest, drawDisclosureScalar, seal } from "./Seal.ts"

export const RECIPIENT_PUBLIC = [
  "addr_f", "pvk_a_x", "pvk_a_y", "r_e_x", "r_e_y", "sigma_e", "v_tilde", "p_r_x", "p_r_y", "nu", "r_disc_x", "r_disc_y",
  "v_tilde_disc"
] as const

export interface RecipientDisclosure {
  /** The keys of the account at the event's `to`. */
  readonly keys: ConfidentialKeys
  readonly event: TransferCiphertext
  readonly request: DisclosureRequest
  readonly rDisc?: bigint
  readonly random?: RandomSource
}

/** Fails with DecryptionFailed when the event was not paid to these keys. */
export const discloseRecipientWitness = ({ keys, event, request, rDisc, random }: RecipientDisclosure): DisclosureWitness => {
  const { amount } = decryptTransfer(keys, event)
  const scalar = drawDisclosureScalar(rDisc, random)
  const sealed = seal(DISCLOSURE, amount, scalar, request)
  const publicInputs = [
    keys.addrF, ...xy(keys.viewingPublicKey), ...eventFields(event), ...xy(request.recipientKey), request.nonce,
    ...sealFields(sealed)
  ]
  return {
    inputs: { sk_a: hex(keys.sk), vk_a: hex(keys.vk), v_tx: hex(amount), r_disc: hex(scalar), ...named(RECIPIENT_PUBLIC, publicInputs) },
    publicInputs,
    value: amount,
    sealed
  }
}
