import { DateTime, Schema } from "effect"
import { documented } from "./Documented.ts"
import { PayoutId } from "./Ids.ts"
import { Page, PageParams } from "./Page.ts"
import {
  DIGEST_DESCRIPTION,
  ENVELOPE_VERSION,
  EXAMPLE_DIGEST,
  SEALING_SUITE,
  SealedEnvelope,
  SealedRecipient,
  Sha256Hex,
  StoredEnvelope
} from "./SealedAmounts.ts"
import { MemberId } from "./Members.ts"

const SealedReceiptFields = {
  payoutId: Schema.propertySignature(PayoutId).annotations({ description: "The payout whose transfer the receipt is of" }),
  envelope: Schema.propertySignature(StoredEnvelope).annotations({
    description: "The receipt (the amount, the transfer's ephemeral secret r_e and its randomness σ) sealed to the " +
      "members who may read amounts, in the envelope of a batch's sealed amounts; opened in the browser only"
  }),
  digest: Schema.propertySignature(Sha256Hex).annotations({ description: `${DIGEST_DESCRIPTION}, as the service computed it` }),
  updatedAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it was last stored" }),
  updatedBy: Schema.propertySignature(Schema.String).annotations({ description: "Who stored it last (their account or Privy id)" })
}

const exampleReceipt: Schema.Struct.Type<typeof SealedReceiptFields> = {
  payoutId: PayoutId.make("5b0e7a43-3f2c-4d8e-9a61-2c7d9e4f1b38"),
  envelope: new SealedEnvelope({
    version: ENVELOPE_VERSION,
    suite: SEALING_SUITE,
    nonce: "DA0ODxAREhMUFRYX",
    ciphertext: "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mrze8BI0VniQ",
    keyCommitment: "q2Yk6Zb1Xh0vF3n8c5sWm0r7Tq9jLd4eA1uJpGx2Kz8",
    recipients: [new SealedRecipient({
      memberId: MemberId.make("3c6f1e2a-9b4d-4f7e-8a15-0d2c7b9e6f41"),
      sealingKey: "LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM",
      enc: "Rt4nE8yq3mW1bV0kJ7aX5cZ2hP9sLdU6gF4oQiMwYvA",
      wrappedKey: "zPOqyGTodn4j5U4RS2hpHh6m0_xz2uYTbv03C0fGZdwHBwcHBwcHBwcHBwcHBwcH"
    })]
  }),
  digest: EXAMPLE_DIGEST,
  updatedAt: DateTime.unsafeMake("2026-11-24T09:31:02Z"),
  updatedBy: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM"
}

/**
 * A sent payout's receipt sealed among the members who may read amounts (issue 31 §2; the client's
 * `client/src/sealing/SealedReceipt.ts` builds it): what a reader needs to check the transfer's on-chain ciphertext
 * against the approved amount. Stored opaque, as a batch's sealed amounts are.
 */
export class SealedReceipt extends Schema.Class<SealedReceipt>("SealedReceipt")(SealedReceiptFields, documented(SealedReceiptFields, {
  description: "A payout's sealed receipt and its digest",
  examples: [exampleReceipt]
})) {}

export const SealedReceiptPage = Page(SealedReceipt).annotations({
  identifier: "SealedReceiptPage",
  description: "A page of a batch's sealed receipts, newest first",
  examples: [{ items: [new SealedReceipt(exampleReceipt)] }]
})

export const ListSealedReceiptsParams = Schema.Struct(PageParams)
