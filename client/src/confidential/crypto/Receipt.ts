// A sender's receipt of one confidential transfer, checked against the transfer as the chain recorded it: with the
// amount v_tx, the ephemeral scalar r_e and σ (what the sender's wallet drew, witness/Transfer.ts), and the recipient's
// viewing key PVK_B (as the contract stores it), the transfer's public ciphertext is recomputed — R_e = r_e·H (T6),
// s = ECDH(r_e, PVK_B) (T5), v_tilde = v_tx + pad(s, σ) (T9) — and compared with the event's R_e, v_tilde and σ
// (OpenZeppelin/stellar-contracts packages/tokens/src/confidential/ at 8af46e2c: mod.rs emits them with each transfer).
// Equal, the recipient decrypts exactly v_tx; the circuit proved C_tx and the sender's balance consistent with them.
import { fieldFromBytes } from "./Field.ts"
import { H, pointFromBytes, scalarMul } from "./Grumpkin.ts"
import { ecdh, encryptAmount } from "./Primitives.ts"

export interface TransferReceipt {
  readonly amount: bigint
  readonly ephemeral: bigint
  readonly sigma: bigint
}

/** The transfer's ciphertext as the token's event carries it: R_e (x‖y, 64 bytes), v_tilde and σ (32 bytes each). */
export interface OnChainCiphertext {
  readonly rE: Uint8Array
  readonly vTilde: Uint8Array
  readonly sigma: Uint8Array
}

/** Which part of the ciphertext the receipt does not reproduce, or "match". */
export type ReceiptCheck = "match" | "sigma" | "ephemeral" | "amount"

export const checkReceipt = (receipt: TransferReceipt, recipientViewingKey: Uint8Array, onChain: OnChainCiphertext): ReceiptCheck => {
  if (fieldFromBytes(onChain.sigma) !== receipt.sigma) return "sigma"
  if (!scalarMul(receipt.ephemeral, H).equals(pointFromBytes(onChain.rE))) return "ephemeral"
  const shared = ecdh(receipt.ephemeral, pointFromBytes(recipientViewingKey))
  return encryptAmount(receipt.amount, shared, receipt.sigma) === fieldFromBytes(onChain.vTilde) ? "match" : "amount"
}
