// A payout's sealed receipt (client/src/sealing/SealedReceipt.ts, opened by the caller: amount, r_e, σ) against the
// transfer the escrow key decrypted. σ and R_e = r_e·H (transfer T6) tie the receipt to this very event; then the
// amount the organization approved is the amount the sender-auditor channel carries. crypto/Receipt.ts checks the
// same receipt against the recipient's ciphertext instead, which needs the recipient's viewing key.
import { R } from "../crypto/Field.ts"
import { H, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import type { ReceiptComparison } from "./ReportModel.ts"

/** The opened receipt's values (PayoutReceipt's). */
export interface OpenedReceipt {
  readonly payoutId: string
  readonly amount: bigint
  readonly ephemeral: bigint
  readonly sigma: bigint
}

export const compareReceipt = (
  receipt: OpenedReceipt,
  event: { readonly rE: GrumpkinPoint; readonly sigma: bigint },
  decryptedAmount: bigint
): ReceiptComparison => {
  const differs = (what: "amount" | "sigma" | "ephemeral"): ReceiptComparison =>
    ({ status: "differs", what, receiptAmount: receipt.amount })
  if (receipt.sigma !== event.sigma) return differs("sigma")
  if (receipt.ephemeral <= 0n || receipt.ephemeral >= R || !scalarMul(receipt.ephemeral, H).equals(event.rE)) return differs("ephemeral")
  return receipt.amount === decryptedAmount ? { status: "matches" } : differs("amount")
}
