import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { OrgId, PayoutId } from "./Ids.ts"

/**
 * The network's largest transaction: `tx_max_size_bytes` of Soroban's bandwidth settings (132,096 bytes on
 * pubnet and testnet), i.e. 176,128 characters of base64. A real confidential transfer (a ~15 KB UltraHonk
 * proof inside `data`, repeated in the source account's authorization entry) is about 32 KB.
 */
export const MAX_TRANSACTION_BYTES = 132_096
export const MAX_SIGNED_XDR_CHARS = Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4

/** Base64 text (what a batch run stores until its worker decodes it): never NULs or lone surrogates. */
export const SignedXdr = Schema.String.pipe(
  Schema.minLength(1, { message: () => "signedXDR must not be empty" }),
  Schema.maxLength(MAX_SIGNED_XDR_CHARS, {
    message: () => `signedXDR is larger than the network's largest transaction (${MAX_TRANSACTION_BYTES} bytes)`
  }),
  Schema.pattern(/^[A-Za-z0-9+/]+={0,2}$/, { message: () => "signedXDR is not a base64 transaction envelope" })
)

export class TransferRequest extends Schema.Class<TransferRequest>("TransferRequest")({
  signedXDR: SignedXdr,
  payoutId: Schema.optional(PayoutId)
}) {}

export class TransferResult extends Schema.Class<TransferResult>("TransferResult")({
  hash: Schema.String,
  status: Schema.Literal("SUCCESS")
}) {}

export const SubmissionState = Schema.Literal("pending", "submitted", "success", "failed", "rejected", "expired")
export type SubmissionState = typeof SubmissionState.Type

/**
 * A transfer's outcome in Stellar RPC's words (`PENDING`, `SUCCESS`, `FAILED`), plus the service's own: `REJECTED`
 * (the network refused it at submission) and `EXPIRED` (the ledger closed past its maxTime without it).
 */
export const TransferOutcome = Schema.Literal("PENDING", "SUCCESS", "FAILED", "REJECTED", "EXPIRED")
export type TransferOutcome = typeof TransferOutcome.Type

export const outcomeOf = (state: SubmissionState): TransferOutcome => {
  switch (state) {
    case "pending":
    case "submitted":
      return "PENDING"
    case "success":
      return "SUCCESS"
    case "failed":
      return "FAILED"
    case "rejected":
      return "REJECTED"
    case "expired":
      return "EXPIRED"
  }
}

export class TransferStatus extends Schema.Class<TransferStatus>("TransferStatus")({
  hash: Schema.String,
  innerHash: Schema.String,
  source: Schema.String,
  status: TransferOutcome,
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

/** A durable submission (`submissions` row) as the transfer services read it. */
export const Submission = Schema.Struct({
  innerHash: Schema.String,
  outerHash: Schema.String,
  envelope: Schema.String,
  source: Schema.String,
  sessionSub: Schema.String,
  orgId: Schema.NullOr(OrgId),
  payoutId: Schema.NullOr(PayoutId),
  state: SubmissionState,
  resultCode: Schema.NullOr(Schema.String),
  ledger: Schema.NullOr(Schema.Int),
  maxTime: Schema.ValidDateFromSelf,
  leaseUntil: Schema.ValidDateFromSelf,
  createdAt: Schema.ValidDateFromSelf,
  updatedAt: Schema.ValidDateFromSelf
})
export type Submission = typeof Submission.Type
