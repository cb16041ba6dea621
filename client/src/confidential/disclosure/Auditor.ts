// D-auditor (SELECTIVE_DISCLOSURE.md §8): the witness of circuits/disclosure/disclose_auditor from an auditor's secret,
// the channel it audits and that channel's amount ciphertext in the event (v_tilde_aud_s or v_tilde_aud_r).
import { DecryptionFailed } from "../Errors.ts"
import { AMOUNT_LIMIT, Fr } from "../crypto/Field.ts"
import { H, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import { requireKey, requireScalar } from "../crypto/Opening.ts"
import { auditorRecipientMasks, auditorSenderMasks, Domain, ecdh } from "../crypto/Primitives.ts"
import type { RandomSource } from "../crypto/Scalar.ts"
import { DISCLOSURE } from "./Domain.ts"
import { type DisclosureWitness, hex, named, sealFields, xy } from "./Inputs.ts"
import { type DisclosureRequest, drawDisclosureScalar, seal } from "./Seal.ts"

export const AUDITOR_PUBLIC = [
  "delta_aud", "k_aud_x", "k_aud_y", "r_e_x", "r_e_y", "sigma_e", "v_tilde_aud", "p_r_x", "p_r_y", "nu", "r_disc_x",
  "r_disc_y", "v_tilde_disc"
] as const

/** "sender": K_aud_s and v_tilde_aud_s (δ_aud_s); "recipient": K_aud_r and v_tilde_aud_r (δ_aud_r). */
export type AuditorChannel = "sender" | "recipient"

export interface AuditedEvent {
  readonly ephemeralKey: GrumpkinPoint
  readonly sigma: bigint
  /** The channel's amount ciphertext. */
  readonly vTildeAud: bigint
}

export interface AuditorDisclosure {
  readonly auditorSecret: bigint
  readonly channel: AuditorChannel
  readonly event: AuditedEvent
  readonly request: DisclosureRequest
  readonly rDisc?: bigint
  readonly random?: RandomSource
}

export const discloseAuditorWitness = (d: AuditorDisclosure): DisclosureWitness => {
  const { event, request } = d
  const secret = requireScalar(d.auditorSecret, "auditor secret", true)
  const masks = d.channel === "sender" ? auditorSenderMasks : auditorRecipientMasks
  const amount = Fr.sub(event.vTildeAud, masks(ecdh(secret, requireKey(event.ephemeralKey, "R_e")), event.sigma)[0])
  if (amount >= AMOUNT_LIMIT) throw new DecryptionFailed({ message: "the channel's ciphertext does not open under this auditor key" })
  const scalar = drawDisclosureScalar(d.rDisc, d.random)
  const sealed = seal(DISCLOSURE, amount, scalar, request)
  const publicInputs = [
    d.channel === "sender" ? Domain.AUDITOR_SENDER : Domain.AUDITOR_RECIPIENT, ...xy(scalarMul(secret, H)),
    ...xy(event.ephemeralKey), event.sigma, event.vTildeAud, ...xy(request.recipientKey), request.nonce, ...sealFields(sealed)
  ]
  return {
    inputs: { aud_sk: hex(secret), v_tx: hex(amount), r_disc: hex(scalar), ...named(AUDITOR_PUBLIC, publicInputs) },
    publicInputs,
    value: amount,
    sealed
  }
}
