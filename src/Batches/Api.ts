import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import {
  AddPayouts,
  Batch,
  BatchPage,
  CreateBatch,
  examplePayout,
  ListBatchesParams,
  ListPayoutsParams,
  Payout,
  PayoutPage,
  RejectBatch
} from "../Domain/Batch.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import { ApproveBatchBody, EXAMPLE_DIGEST, RecipientRefused, SealedAmounts, SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { BatchId, PayoutId } from "../Domain/Ids.ts"

const id = HttpApiSchema.param("id", Schema.propertySignature(BatchId).annotations({ description: "The batch's id" }))
const payoutId = HttpApiSchema.param(
  "payoutId",
  Schema.propertySignature(PayoutId).annotations({ description: "The payout's id" })
)

const Payouts = Schema.Array(Payout).annotations({ description: "The batch's payouts", examples: [[examplePayout]] })

const approveBody = { anyOf: [{ $ref: "#/components/schemas/ApproveBatch" }, { type: "null" }] }

const EMPLOYER = "For an employer: 403 when the session belongs to no organization."
const MISSING = "404 when the organization has no such batch (another organization's answers alike)."
const DRAFT_ONLY = "409 when the batch is no longer a draft."

export class BatchesApi extends HttpApiGroup.make("batches")
  .add(
    HttpApiEndpoint.post("create", "/batches").setPayload(CreateBatch).addSuccess(Batch).addError(Conflict)
      .annotate(OpenApi.Summary, "Create a batch")
      .annotate(
        OpenApi.Description,
        "Creates an empty `draft` batch, the payouts of one payroll run: add payouts to it, then lock it with POST " +
          `/batches/{id}/ready. ${EMPLOYER}`
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/batches").setUrlParams(ListBatchesParams).addSuccess(BatchPage)
      .annotate(OpenApi.Summary, "List batches")
      .annotate(
        OpenApi.Description,
        "The organization's batches, newest first, a page at a time (`limit`, default 50; pass `nextCursor` as " +
          `\`cursor\` for the next page), optionally only those in one \`status\`. ${EMPLOYER} 400 for a \`limit\` ` +
          "outside 1 to 100 or a `cursor` this service did not hand out."
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/batches/${id}`.addSuccess(Batch).addError(NotFound)
      .annotate(OpenApi.Summary, "Get a batch")
      .annotate(
        OpenApi.Description,
        "One batch with its counters (`payoutCount`, `settledCount`, `failedCount`) and times (`startedAt`, " +
          `\`completedAt\`): watch a payroll run here. ${EMPLOYER} ${MISSING}`
      )
  )
  .add(
    HttpApiEndpoint.post("ready")`/batches/${id}/ready`.addSuccess(Batch).addError(NotFound).addError(Conflict)
      .annotate(OpenApi.Summary, "Lock a batch")
      .annotate(
        OpenApi.Description,
        "Moves a `draft` batch to `ready`, and its payouts with it: its payouts can no longer change, and transfers " +
          `can now pay them. ${EMPLOYER} ${MISSING} 409 when the batch is not a draft, or has no payout.`
      )
  )
  .add(
    HttpApiEndpoint.del("remove")`/batches/${id}`.addSuccess(HttpApiSchema.NoContent).addError(NotFound).addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a draft batch")
      .annotate(
        OpenApi.Description,
        `Deletes a \`draft\` batch with its payouts; answers 204. ${EMPLOYER} ${MISSING} ${DRAFT_ONLY}`
      )
  )
  .add(
    HttpApiEndpoint.get("payouts")`/batches/${id}/payouts`.setUrlParams(ListPayoutsParams).addSuccess(PayoutPage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List a batch's payouts")
      .annotate(
        OpenApi.Description,
        "The batch's payouts, newest first, a page at a time (`limit`, default 50; pass `nextCursor` as `cursor` for " +
          "the next page), each with its status and, once a transfer was sent for it, the transfer's hash (and why it " +
          `failed). ${EMPLOYER} ${MISSING} 400 for a \`limit\` outside 1 to 100 or a \`cursor\` this service did not hand out.`
      )
  )
  .add(
    HttpApiEndpoint.post("addPayouts")`/batches/${id}/payouts`
      .setPayload(AddPayouts)
      .addSuccess(Payouts.annotations({ description: "The payouts added" }))
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Add payouts to a draft batch")
      .annotate(
        OpenApi.Description,
        "Adds one payout per contractor given, in one step (all or none); answers the payouts added. No amount is " +
          `given: the transfer that pays a payout carries it, encrypted. ${EMPLOYER} ${MISSING} 404 also when a ` +
          `contractor is not the organization's. ${DRAFT_ONLY} 409 also when a contractor is given twice, is not ` +
          "`ready`, or is already in the batch."
      )
  )
  .add(
    HttpApiEndpoint.del("removePayout")`/batches/${id}/payouts/${payoutId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Remove a payout from a draft batch")
      .annotate(
        OpenApi.Description,
        `Removes one payout; answers 204. ${EMPLOYER} ${MISSING} 404 also when the batch has no such payout. ${DRAFT_ONLY}`
      )
  )
  .add(
    HttpApiEndpoint.post("approve")`/batches/${id}/approve`.setPayload(ApproveBatchBody).addSuccess(Batch).addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Approve a ready batch")
      .annotate(
        OpenApi.Description,
        "Records the caller's approval of a `ready` batch (maker-checker): once it holds the organization's " +
          "`approvalsRequired` (GET /org/settings), its payouts can be paid. The body is optional: when the batch has " +
          "sealed amounts, it must name their current digest (`sealedAmountsDigest`, as GET " +
          "/batches/{id}/sealed-amounts answers it), and the approval records it. Answers the batch with its " +
          `\`approvals\`. Needs \`batches:approve\` (owner, admin, approver). ${MISSING} 403 for the member who created ` +
          "or readied it; 409 when the batch is not `ready`, the caller already approved it, or the digest named is " +
          "not the batch's current one (the amounts changed since the caller looked, or it names none while the batch " +
          "has sealed amounts)."
      )
      // The body may be absent (a batch without sealed amounts is approved as before): not required, and its
      // example shown on the media type, since the schema is a union with `null`.
      .annotate(OpenApi.Transform, (operation) => ({
        ...operation,
        requestBody: {
          required: false,
          content: { "application/json": { schema: approveBody, example: { sealedAmountsDigest: EXAMPLE_DIGEST } } }
        }
      }))
  )
  .add(
    HttpApiEndpoint.post("reject")`/batches/${id}/reject`.setPayload(RejectBatch).addSuccess(Batch).addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Reject a ready batch")
      .annotate(
        OpenApi.Description,
        "Sends a `ready` batch back to `draft` with its payouts, its approvals cleared, with the reason in its " +
          `\`batch.rejected\` event. Needs \`batches:approve\`. ${MISSING} 409 when the batch is not \`ready\`.`
      )
  )
  .add(
    HttpApiEndpoint.post("pause")`/batches/${id}/pause`.addSuccess(Batch).addError(NotFound).addError(Conflict)
      .annotate(OpenApi.Summary, "Pause a batch")
      .annotate(
        OpenApi.Description,
        "Stops a `ready` or `started` batch (`paused`): its payouts are not sponsored (POST /transfer answers 409) " +
          "and batch-run items paying them wait, queued, until it is resumed. What was already sent cannot be " +
          `recalled and lands as the ledger decides. Needs \`batches:control\` (owner, admin, approver, payer). ${MISSING} ` +
          "409 when the batch is in another state (named)."
      )
  )
  .add(
    HttpApiEndpoint.post("resume")`/batches/${id}/resume`.addSuccess(Batch).addError(NotFound).addError(Conflict)
      .annotate(OpenApi.Summary, "Resume a paused batch")
      .annotate(
        OpenApi.Description,
        "Returns a `paused` batch to the state it was paused from; waiting batch-run items go on. Needs " +
          `\`batches:control\`. ${MISSING} 409 when the batch is not paused.`
      )
  )
  .add(
    HttpApiEndpoint.post("cancel")`/batches/${id}/cancel`.addSuccess(Batch).addError(NotFound).addError(Conflict)
      .annotate(OpenApi.Summary, "Cancel a batch")
      .annotate(
        OpenApi.Description,
        "Cancels every payout not yet submitted (`canceled`: never sponsored afterwards); payouts already submitted " +
          "finish as the ledger decides, and the batch becomes `canceled` once nothing of it is in flight (at once when " +
          "nothing is), with `cancelRequestedAt` set meanwhile and its counts true. Needs `batches:write` (owner, admin, " +
          `initiator). ${MISSING} 409 when the batch is completed or already canceled.`
      )
  )
  .add(
    HttpApiEndpoint.post("cancelPayout")`/batches/${id}/payouts/${payoutId}/cancel`.addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Cancel one payout")
      .annotate(
        OpenApi.Description,
        "Cancels one payout not yet submitted (draft, ready or failed): it is never sponsored afterwards. Answers 204. " +
          `Needs \`batches:write\`. ${MISSING} 404 also when the batch has no such payout; 409 when the payout was ` +
          "submitted, settled or canceled already."
      )
  )
  .add(
    HttpApiEndpoint.put("sealAmounts")`/batches/${id}/sealed-amounts`.setPayload(SealedEnvelope).addSuccess(SealedAmounts)
      .addError(NotFound)
      .addError(Conflict)
      .addError(RecipientRefused)
      .annotate(OpenApi.Summary, "Store a batch's sealed amounts")
      .annotate(
        OpenApi.Description,
        "Stores the batch's amounts as an envelope sealed in the caller's browser to the members who may read them " +
          "(HPKE, RFC 9180); the service checks its shape and sizes, never its content, and answers it with its " +
          "`digest` (SHA-256 of the key commitment's, the nonce's and the ciphertext's bytes: version 2 envelopes " +
          "commit to their content key, so no two readers can be handed different keys for one digest). New amounts " +
          "(another digest) need `batches:write` and `amounts:read` (owner, admin, initiator), only while the batch is " +
          "a `draft`, and clear its approvals. The same digest with other recipients (sharing with a member who joined " +
          "later) needs `amounts:read` only, in any state but `completed` and `canceled`, and keeps the approvals; a " +
          "share may only add recipients: every entry on file whose member is still a reader with the key it names " +
          `comes back byte for byte and in its order. ${MISSING} ` +
          "403 for a role without `amounts:read` (viewer), for new amounts without `batches:write`, and for API keys; " +
          "409 when new amounts are given for a batch that is no longer a draft, anything for a completed or " +
          "canceled batch (the state is named), or a share that would drop, change or move a current reader's entry " +
          "(named); 422 when a recipient is not a current member holding `amounts:read` whose entry names the sealing " +
          "key they published (named); 400 for an envelope of the wrong shape or sizes (a version 1 envelope included)."
      )
  )
  .add(
    HttpApiEndpoint.get("sealedAmounts")`/batches/${id}/sealed-amounts`.addSuccess(SealedAmounts).addError(NotFound)
      .annotate(OpenApi.Summary, "Get a batch's sealed amounts")
      .annotate(
        OpenApi.Description,
        "The batch's sealed amounts: the envelope (open it in the browser with your sealing key), its `digest` (name " +
          "it when approving), and who stored it when. Needs `amounts:read` (every role but viewer): 403 otherwise, " +
          `and for API keys. ${MISSING} 404 also when the batch has no sealed amounts.`
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Batches")
  .annotate(
    OpenApi.Description,
    "Payroll batches: the payouts of one run (one per contractor, no amounts), prepared as a `draft`, locked " +
      "(`ready`), then paid by transfers that name each payout; the batch counts them as they settle or fail."
  )
{}
