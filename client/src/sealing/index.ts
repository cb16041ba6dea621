// Sealing (issue 31 §1–2): members' sealing keys derived from their wallets, and batch amounts and payout receipts
// sealed among the members who may read them with HPKE (RFC 9180), in the envelope the service stores opaque.
export { fromBase64Url, toBase64Url } from "./Base64Url.ts"
export {
  decodeEnvelope,
  digest,
  ENVELOPE_VERSION,
  KEY_COMMITMENT_LABEL,
  keyCommitment,
  type Opener,
  type Recipient,
  SealedEnvelope,
  type SealedRecipient,
  unsharedReaders
} from "./Envelope.ts"
export { type OpenProblem, SealedOpenFailed, SealingInputInvalid, type SealingInputProblem } from "./Errors.ts"
export { AMOUNT_DECIMALS, amountFromDecimal, amountToDecimal } from "./Plaintext.ts"
export { openAmounts, type PayoutAmount, SEALED_AMOUNTS_INFO, sealAmounts, shareWith } from "./SealedAmounts.ts"
export {
  openReceipt,
  type PayoutReceipt,
  type ReceiptId,
  SEALED_RECEIPT_INFO,
  sealReceipt,
  shareReceiptWith
} from "./SealedReceipt.ts"
export {
  deriveSealingKey,
  SEALING_KEY_LABEL,
  sealingKeyMessage,
  type SealingKeyOptions,
  SealingKeyPair
} from "./SealingKey.ts"
export { SUITE_NAME } from "./Suite.ts"
