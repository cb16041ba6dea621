// A sent payout's receipt sealed for the readers (issue 31 §2), in the same envelope as the amounts. The document is
//   { batchId, payoutId, amount: "<decimal, 7 places>", ephemeral: "0x…" (r_e), sigma: "0x…" (σ) }
// sealed with AAD = utf8(batchId ‖ "\n" ‖ payoutId); each wrapped key has HPKE info
// "confidential-payroll/sealed-receipt/v1" and aad = utf8(batchId ‖ "\n" ‖ payoutId ‖ "\n" ‖ memberId). The own info
// label keeps a receipt from ever opening as a batch's amounts and the other way round.
import { Schema } from "effect"
import {
  openDocument,
  type Opener,
  type Recipient,
  sealDocument,
  type SealedEnvelope,
  type SealingContext,
  shareDocument
} from "./Envelope.ts"
import { SealedOpenFailed } from "./Errors.ts"
import {
  amountFromDecimal,
  amountToDecimal,
  DecimalAmount,
  decodeDocument,
  Hex256,
  Identifier,
  requireId,
  secretToHex
} from "./Plaintext.ts"
import type { SealingKeyPair } from "./SealingKey.ts"
import { utf8 } from "./Suite.ts"

export const SEALED_RECEIPT_INFO = "confidential-payroll/sealed-receipt/v1"

/** What a reader needs to check a sent payout's on-chain ciphertext against the approved amount. */
export interface PayoutReceipt {
  readonly batchId: string
  readonly payoutId: string
  /** In the token's units (7 decimals). */
  readonly amount: bigint
  /** r_e, the transfer's ephemeral ECDH scalar. */
  readonly ephemeral: bigint
  /** σ, the transfer's public randomness. */
  readonly sigma: bigint
}

/** Which payout's receipt: both ids are bound into every AAD. */
export interface ReceiptId {
  readonly batchId: string
  readonly payoutId: string
}

const ReceiptDocument = Schema.Struct({
  batchId: Identifier,
  payoutId: Identifier,
  amount: DecimalAmount,
  ephemeral: Hex256,
  sigma: Hex256
})

const receiptContext = ({ batchId, payoutId }: ReceiptId): SealingContext => {
  const payout = `${requireId(batchId, "the batch id")}\n${requireId(payoutId, "the payout id")}`
  return { info: SEALED_RECEIPT_INFO, contentAad: payout, wrapAad: (memberId) => `${payout}\n${memberId}` }
}

export const sealReceipt = async (
  receipt: PayoutReceipt,
  recipients: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => {
  const context = receiptContext(receipt)
  const document = {
    batchId: receipt.batchId,
    payoutId: receipt.payoutId,
    amount: amountToDecimal(receipt.amount),
    ephemeral: secretToHex(receipt.ephemeral, "r_e"),
    sigma: secretToHex(receipt.sigma, "sigma")
  }
  return await sealDocument(context, utf8(JSON.stringify(document)), recipients)
}

/** Opens a payout's receipt as `memberId`; a SealedOpenFailed when not a recipient or anything was altered. */
export const openReceipt = async (
  envelope: unknown,
  id: ReceiptId,
  memberId: string,
  keyPair: SealingKeyPair
): Promise<PayoutReceipt> => {
  const plaintext = await openDocument(receiptContext(id), envelope, { memberId, keyPair })
  const document = decodeDocument(ReceiptDocument, plaintext)
  if (document === undefined || document.batchId !== id.batchId || document.payoutId !== id.payoutId) {
    throw new SealedOpenFailed({ reason: "Malformed", message: "the sealed document is not this payout's receipt" })
  }
  return {
    batchId: document.batchId,
    payoutId: document.payoutId,
    amount: amountFromDecimal(document.amount),
    ephemeral: BigInt(document.ephemeral),
    sigma: BigInt(document.sigma)
  }
}

/** The same receipt for `readers`, every member who should read it now (as `shareWith`): the same digest. */
export const shareReceiptWith = async (
  envelope: SealedEnvelope,
  id: ReceiptId,
  opener: Opener,
  readers: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => await shareDocument(receiptContext(id), envelope, opener, readers)
