import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class TransferRequest extends Schema.Class<TransferRequest>("TransferRequest")({
  signedXDR: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200_000)),
  payoutId: Schema.optional(Schema.UUID)
}) {}

export class TransferResult extends Schema.Class<TransferResult>("TransferResult")({
  hash: Schema.String,
  status: Schema.Literal("SUCCESS")
}) {}

export const SubmissionState = Schema.Literal("pending", "submitted", "success", "failed", "rejected", "expired")
export type SubmissionState = typeof SubmissionState.Type

export class TransferStatus extends Schema.Class<TransferStatus>("TransferStatus")({
  hash: Schema.String,
  innerHash: Schema.String,
  source: Schema.String,
  state: SubmissionState,
  resultCode: Schema.optional(Schema.String),
  ledger: Schema.optional(Schema.Int),
  payoutId: Schema.optional(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}

/** The sponsor's policy refused the transaction; `rule` names which. */
export class SponsorRefused extends Schema.TaggedError<SponsorRefused>()(
  "SponsorRefused",
  { error: Schema.String, rule: Schema.String },
  HttpApiSchema.annotations({ status: 422 })
) {}

/** The network rejected the transaction, or applied it as FAILED. */
export class TransferRejected extends Schema.TaggedError<TransferRejected>()(
  "TransferRejected",
  { error: Schema.String, hash: Schema.String, resultCode: Schema.String },
  HttpApiSchema.annotations({ status: 422 })
) {}

/** Not final before the transaction's deadline; the reconciler keeps following it. */
export class TransferTimeout extends Schema.TaggedError<TransferTimeout>()(
  "TransferTimeout",
  { error: Schema.String, hash: Schema.String },
  HttpApiSchema.annotations({ status: 504 })
) {}
