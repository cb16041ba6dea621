// A batch's amounts sealed among the members who may see them (issue 31 §1). The document is
//   { batchId, amounts: [{ payoutId, amount: "<decimal, 7 places>" }] }
// sealed with AAD = utf8(batchId); each member's wrapped key has HPKE info "confidential-payroll/sealed-amounts/v1"
// and aad = utf8(batchId ‖ "\n" ‖ memberId), so an envelope opens only as the batch and for the member it names.
import { Schema } from "effect"
import {
  digest,
  openDocument,
  type Opener,
  type Recipient,
  sealDocument,
  type SealedEnvelope,
  type SealingContext,
  shareDocument
} from "./Envelope.ts"
import { SealedOpenFailed, SealingInputInvalid } from "./Errors.ts"
import { amountFromDecimal, amountToDecimal, DecimalAmount, decodeDocument, Identifier, requireId } from "./Plaintext.ts"
import type { SealingKeyPair } from "./SealingKey.ts"
import { utf8 } from "./Suite.ts"

export const SEALED_AMOUNTS_INFO = "confidential-payroll/sealed-amounts/v1"

/** One payout's amount, in the token's units (7 decimals). */
export interface PayoutAmount {
  readonly payoutId: string
  readonly amount: bigint
}

const AmountsDocument = Schema.Struct({
  batchId: Identifier,
  amounts: Schema.Array(Schema.Struct({ payoutId: Identifier, amount: DecimalAmount }))
})

const amountsContext = (batchId: string): SealingContext => ({
  info: SEALED_AMOUNTS_INFO,
  contentAad: requireId(batchId, "the batch id"),
  wrapAad: (memberId) => `${batchId}\n${memberId}`
})

/** Seals the batch's amounts for each recipient (a member id and their published sealing key). */
export const sealAmounts = async (
  batchId: string,
  amounts: ReadonlyArray<PayoutAmount>,
  recipients: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => {
  const context = amountsContext(batchId)
  const ids = amounts.map((a) => requireId(a.payoutId, "a payout id"))
  if (new Set(ids).size !== ids.length) {
    throw new SealingInputInvalid({ reason: "AmountInvalid", message: "a payout is listed twice" })
  }
  const document = { batchId, amounts: amounts.map((a) => ({ payoutId: a.payoutId, amount: amountToDecimal(a.amount) })) }
  return await sealDocument(context, utf8(JSON.stringify(document)), recipients)
}

/** Opens the batch's amounts as `memberId`; a SealedOpenFailed when not a recipient or anything was altered. */
export const openAmounts = async (
  envelope: unknown,
  batchId: string,
  memberId: string,
  keyPair: SealingKeyPair
): Promise<Array<PayoutAmount>> => {
  const plaintext = await openDocument(amountsContext(batchId), envelope, { memberId, keyPair })
  const document = decodeDocument(AmountsDocument, plaintext)
  if (document === undefined || document.batchId !== batchId) {
    throw new SealedOpenFailed({ reason: "Malformed", message: "the sealed document is not this batch's amounts" })
  }
  return document.amounts.map((a) => ({ payoutId: a.payoutId, amount: amountFromDecimal(a.amount) }))
}

/**
 * The same amounts for `readers`, every member who should read them now with their published key (Envelope.ts
 * shareDocument): entries already wrapped to a reader's key are kept as they are, the others added; `digest` is unchanged.
 */
export const shareWith = async (
  envelope: SealedEnvelope,
  batchId: string,
  opener: Opener,
  readers: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => await shareDocument(amountsContext(batchId), envelope, opener, readers)

export { digest }
