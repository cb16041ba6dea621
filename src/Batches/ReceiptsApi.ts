import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import { BatchId, PayoutId } from "../Domain/Ids.ts"
import { RecipientRefused, SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { ListSealedReceiptsParams, SealedReceipt, SealedReceiptPage } from "../Domain/SealedReceipts.ts"

const id = HttpApiSchema.param("id", Schema.propertySignature(BatchId).annotations({ description: "The batch's id" }))
const payoutId = HttpApiSchema.param(
  "payoutId",
  Schema.propertySignature(PayoutId).annotations({ description: "The payout's id" })
)

const MISSING = "404 when the organization has no such batch (another organization's answers alike)"
const READERS = "Needs `amounts:read` (every role but viewer): 403 otherwise, and for API keys."

export class SealedReceiptsApi extends HttpApiGroup.make("sealedReceipts")
  .add(
    HttpApiEndpoint.put("sealReceipt")`/batches/${id}/payouts/${payoutId}/sealed-receipt`
      .setPayload(SealedEnvelope)
      .addSuccess(SealedReceipt)
      .addError(NotFound)
      .addError(Conflict)
      .addError(RecipientRefused)
      .annotate(OpenApi.Summary, "Store a payout's sealed receipt")
      .annotate(
        OpenApi.Description,
        "Stores the receipt of the transfer paying this payout (its amount, ephemeral secret r_e and randomness σ) as " +
          "an envelope sealed in the payer's browser to the members who may read amounts (HPKE, RFC 9180; the envelope " +
          "of PUT /batches/{id}/sealed-amounts): the service checks its shape and sizes, never its content, and answers " +
          "it with its `digest` (SHA-256 of the key commitment's, the nonce's and the ciphertext's bytes). Seal it before posting the " +
          "transfer (POST /transfer), as the wallet keeps its openings. A new receipt (another digest) needs " +
          "`transfers:submit` (owner, payer), for a payout of a readied batch that was not canceled (`ready`, " +
          "`submitted`, `settled` or `failed`); it replaces the one on file only while no transfer of the payout is in " +
          "flight or landed (`ready`, or `failed`: the retry is another proof). The same receipt again is answered as " +
          "stored; with other recipients (sharing with a member who joined later) it needs `amounts:read` only, in " +
          "any of those states, and may only add recipients: every entry on file whose member is still a reader with " +
          "the key it names comes back byte for byte and in its order. " +
          `${READERS} ${MISSING}; 404 also when the batch has no such payout. 403 for a new receipt ` +
          "without `transfers:submit`; 409 when the payout is `draft` or `canceled`, another receipt is given for a " +
          "payout that is `submitted` or `settled`, or a share would drop, change or move a current reader's entry " +
          "(named); 422 when a recipient is not a current member holding `amounts:read` whose entry names the " +
          "sealing key they published (named); 400 for an envelope of the wrong shape or sizes (a version 1 envelope " +
          "included)."
      )
  )
  .add(
    HttpApiEndpoint.get("sealedReceipt")`/batches/${id}/payouts/${payoutId}/sealed-receipt`
      .addSuccess(SealedReceipt)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a payout's sealed receipt")
      .annotate(
        OpenApi.Description,
        "The payout's sealed receipt: the envelope (open it in the browser with your sealing key), its `digest`, and " +
          `who stored it when. ${READERS} ${MISSING}; 404 also when the payout has no sealed receipt.`
      )
  )
  .add(
    HttpApiEndpoint.get("sealedReceipts")`/batches/${id}/sealed-receipts`
      .setUrlParams(ListSealedReceiptsParams)
      .addSuccess(SealedReceiptPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List a batch's sealed receipts")
      .annotate(
        OpenApi.Description,
        "Every sealed receipt of the batch's payouts, newest first, a page at a time (`limit`, default 50; pass " +
          "`nextCursor` as `cursor` for the next page): what a reader's browser opens to reconcile each transfer's " +
          `on-chain ciphertext with the approved amounts. ${READERS} ${MISSING}. 400 for a \`limit\` outside 1 to 100 or ` +
          "a `cursor` this service did not hand out."
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Sealed receipts")
  .annotate(
    OpenApi.Description,
    "Each sent payout's receipt, sealed among the members who may read amounts: stored opaque, for reconciliation in " +
      "their browsers."
  )
{}
