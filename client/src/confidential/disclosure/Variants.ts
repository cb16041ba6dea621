// What each circuit_id (Exchange.ts) denotes: the compiled circuit whose committed key verifies it, who discloses
// (which accounts of the event step 2 reads), how many event slots it has and the tag its seal pads with.
import { Domain } from "../crypto/Primitives.ts"
import type { DisclosureCircuitName } from "./DisclosureCircuits.ts"
import { DISCLOSURE, DISCLOSURE_BIND } from "./Domain.ts"
import type { CircuitId } from "./Exchange.ts"

export interface Variant {
  readonly circuit: DisclosureCircuitName
  /** recipient: PVK_A at E.to; sender: PVK_A at the originator, PVK_B at E.to; auditor: K_aud of a channel. */
  readonly role: "recipient" | "sender" | "auditor"
  /** 1 for the single-event circuits, else the aggregate's slots. */
  readonly slots: 1 | 8 | 24
  readonly sealTag: bigint
  /** D-auditor's δ_aud: the sender's channel (11) or the recipient's (12). */
  readonly channel?: "sender" | "recipient"
}

const single = (circuit: DisclosureCircuitName, role: Variant["role"]): Variant => ({ circuit, role, slots: 1, sealTag: DISCLOSURE })
const aggregate = (circuit: DisclosureCircuitName, role: Variant["role"], slots: 8 | 24): Variant => ({ circuit, role, slots, sealTag: DISCLOSURE_BIND })

export const VARIANTS: Readonly<Record<CircuitId, Variant>> = {
  disclose_recipient: single("disclose_recipient", "recipient"),
  disclose_recipient_8: aggregate("disclose_recipient_8", "recipient", 8),
  disclose_recipient_24: aggregate("disclose_recipient_24", "recipient", 24),
  disclose_sender: single("disclose_sender", "sender"),
  disclose_sender_8: aggregate("disclose_sender_8", "sender", 8),
  disclose_sender_24: aggregate("disclose_sender_24", "sender", 24),
  disclose_auditor_sender: { ...single("disclose_auditor", "auditor"), channel: "sender" },
  disclose_auditor_recipient: { ...single("disclose_auditor", "auditor"), channel: "recipient" }
}

/** δ_aud of an auditor channel (Primitives.ts Domain: 11 sender, 12 recipient). */
export const auditorTag = (channel: "sender" | "recipient"): bigint => (channel === "sender" ? Domain.AUDITOR_SENDER : Domain.AUDITOR_RECIPIENT)

/** The aggregate circuit of a role that holds `count` events: the smallest size that fits. */
export const aggregateId = (role: "recipient" | "sender", count: number): CircuitId | undefined =>
  count <= 8 ? `disclose_${role}_8` : count <= 24 ? `disclose_${role}_24` : undefined
