// Decrypting an operation with the organization's escrow key (DESIGN_cont.md §8.1, §8.2, §8.4 at 8af46e2c).
//
// What binds the plaintext: nothing in the 8af46e2c events. The sender auditor never learns a blinding (r_tx goes to
// the recipient's auditor, the spendable blinding derives from vk), and the events carry neither C_tx nor C_spend'
// (mod.rs Transfer, Withdraw), so no commitment can be recomputed. What a wrong key (or a ciphertext not made for
// this key: another auditor id, a rotated key) still cannot get past:
//   1. the range: the circuits prove every amount and balance < 2^127 (transfer T4, withdraw W4, set_spender S4,
//      revoke_spender V4, spender_transfer O4: assert_max_bit_size::<127>); a wrong key unmasks uniform field elements,
//      in range with probability 2^-127 each;
//   2. continuity (Continuity.ts): each balance checkpoint is the previous one moved by what happened in between.
import { DecryptionFailed } from "../Errors.ts"
import { AMOUNT_LIMIT } from "../crypto/Field.ts"
import { auditorSharedSecret, unmaskAuditorRecipient, unmaskAuditorSender, unmaskAuditorSenderBalance } from "../crypto/AuditorChannel.ts"
import type { AuditEvent, ProvenEvent } from "./AuditEvent.ts"

/**
 * The sender-auditor plaintext: the amount the operation moved (for a withdrawal the public `amount`) and the balance
 * after it: the spendable balance, or for a spender_transfer the allowance left (a_tilde_aud_s, O_a8).
 */
export interface SenderAuditorOpening {
  readonly amount: bigint
  readonly balanceAfter: bigint
}

const inRange = (value: bigint, what: string): bigint => {
  if (value >= AMOUNT_LIMIT) throw new DecryptionFailed({ message: `the ${what} does not open under this auditor key` })
  return value
}

/** With s = ECDH(k, R_e) already computed (one scalar multiplication an event, shared by both channels). */
export const openSenderChannel = (s: bigint, event: ProvenEvent): SenderAuditorOpening => {
  if (event.type === "withdraw") {
    return { amount: event.amount, balanceAfter: inRange(unmaskAuditorSenderBalance(event.bTildeAudS, s, event.sigma), "balance") }
  }
  const after = event.type === "spender_transfer" ? event.aTildeAudS : event.bTildeAudS
  const { amount, balance } = unmaskAuditorSender(event.vTildeAudS, after, s, event.sigma)
  return { amount: inRange(amount, "amount"), balanceAfter: inRange(balance, "balance") }
}

/** The amount of a transfer into an account whose auditor holds the key (T_a3, O_a3); r_tx is not needed here. */
export const openRecipientChannel = (s: bigint, event: Extract<AuditEvent, { type: "transfer" | "spender_transfer" }>): bigint =>
  inRange(unmaskAuditorRecipient(event.vTildeAudR, event.rTildeAudR, s, event.sigma).amount, "amount")

/** What the escrow key reads of one proven operation; DecryptionFailed when it was not encrypted to this key. */
export const decryptSenderAuditor = (auditorSecret: bigint, event: ProvenEvent): SenderAuditorOpening =>
  openSenderChannel(auditorSharedSecret(auditorSecret, event.rE), event)
