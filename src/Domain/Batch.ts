import { DateTime, Option, Schema } from "effect"
import { BatchId, ContractorId, PayoutId } from "./Ids.ts"
import { Page, PageParams } from "./Page.ts"
import { MAX_BODY_KIB } from "./RequestLimits.ts"
import { documented } from "./Documented.ts"
import { fromRow, Optional } from "./Row.ts"
import { Name } from "./Text.ts"
import { EXAMPLE_XDR, SignedXdr } from "./Transfer.ts"

export const BatchStatus = Schema.Literal("draft", "ready", "started", "paused", "completed", "canceled")
export type BatchStatus = typeof BatchStatus.Type

export const PayoutStatus = Schema.Literal("draft", "ready", "submitted", "settled", "failed", "canceled")
export type PayoutStatus = typeof PayoutStatus.Type

const EXAMPLE_BATCH = BatchId.make("0d9c3a52-6f1e-4b7a-8c25-3e9f1a7d4b60")
const EXAMPLE_PAYOUT = PayoutId.make("5b0e7a43-3f2c-4d8e-9a61-2c7d9e4f1b38")
const EXAMPLE_CONTRACTOR = ContractorId.make("8a4f2c1e-7b3d-4e9a-a6c5-1f0e3d2b9c87")

// Batch, Payout and ContractorPayout have optional fields (`Optional`), so their JSON Schema comes from the encoded
// side, where only a field's own schema carries its description; the other classes annotate their fields.
/** One approval of a batch: who gave it, when, and for which sealed amounts. */
export const Approval = Schema.Struct({
  by: Schema.String.annotations({ description: "The approving member (their account, or their Privy id)" }),
  at: Schema.DateTimeUtc.annotations({ description: "When they approved" }),
  sealedAmountsDigest: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "The digest of the sealed amounts they approved (absent when the batch had none)"
  })
})
export type Approval = typeof Approval.Type

const BatchFields = {
  id: BatchId.annotations({ description: "The batch's id" }),
  name: Schema.String.annotations({ description: "The batch's name, such as the month it pays" }),
  status: BatchStatus.annotations({
    description: "`draft` while payouts are added or removed; `ready` once locked; `started` from its first submitted " +
      "transfer; `paused` while stopped (nothing of it is sponsored until resumed); `completed` once every payout is " +
      "settled or failed (a retried payout starts it again); `canceled` once canceled and nothing of it is in flight"
  }),
  payoutCount: Schema.Int.annotations({ description: "How many payouts the batch holds" }),
  settledCount: Schema.Int.annotations({ description: "How many of them are settled" }),
  failedCount: Schema.Int.annotations({ description: "How many of them failed (and were not retried since)" }),
  canceledCount: Schema.Int.annotations({ description: "How many of them were canceled" }),
  approvalsRequired: Schema.Int.annotations({
    description: "How many approvals the organization requires before any payout of a batch is sponsored (PATCH /org/settings)"
  }),
  approvals: Schema.Array(Approval).annotations({
    description: "The approvals it holds, oldest first (cleared when it is rejected back to draft, or when its sealed " +
      "amounts change)"
  }),
  sealedAmountsDigest: Optional(Schema.String).annotations({
    description: "The digest of its sealed amounts (GET /batches/{id}/sealed-amounts), when it has some: an approval " +
      "names it"
  }),
  createdBy: Optional(Schema.String).annotations({ description: "Who created it (they may not approve it)" }),
  readiedBy: Optional(Schema.String).annotations({ description: "Who readied it (they may not approve it)" }),
  cancelRequestedAt: Optional(Schema.DateTimeUtc).annotations({
    description: "When it was canceled: its unsent payouts are `canceled`, and it becomes `canceled` once the payouts " +
      "already submitted are final"
  }),
  createdAt: Schema.DateTimeUtc.annotations({ description: "When the batch was created" }),
  startedAt: Optional(Schema.DateTimeUtc).annotations({ description: "When its first transfer was submitted" }),
  completedAt: Optional(Schema.DateTimeUtc).annotations({ description: "When its last payout became final" })
}

const exampleBatch: Schema.Struct.Type<typeof BatchFields> = {
  id: EXAMPLE_BATCH,
  name: "November 2026",
  status: "started",
  payoutCount: 12,
  settledCount: 9,
  failedCount: 1,
  canceledCount: 0,
  approvalsRequired: 1,
  approvals: [{
    by: "GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI",
    at: DateTime.unsafeMake("2026-11-23T16:40:00Z"),
    sealedAmountsDigest: "3cc26b321789a279435958cb1924c634297be19ded558a34664f5929cfaa0b40"
  }],
  sealedAmountsDigest: Option.some("3cc26b321789a279435958cb1924c634297be19ded558a34664f5929cfaa0b40"),
  createdBy: Option.some("GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM"),
  readiedBy: Option.some("GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM"),
  cancelRequestedAt: Option.none(),
  createdAt: DateTime.unsafeMake("2026-11-20T14:02:11Z"),
  startedAt: Option.some(DateTime.unsafeMake("2026-11-24T09:30:02Z")),
  completedAt: Option.none()
}

export class Batch extends Schema.Class<Batch>("Batch")(BatchFields, documented(BatchFields, {
  description: "A payroll batch: the payouts of one run, and how far they got",
  examples: [exampleBatch]
})) {}

/** An approval as the batch's columns carry it: `json_agg` of `{by, at, digest}`, times as PostgreSQL writes them. */
const ApprovalFromJson = Schema.transform(
  Schema.Struct({ by: Schema.String, at: Schema.DateTimeUtc, digest: Schema.NullOr(Schema.String) }),
  Schema.typeSchema(Approval),
  {
    strict: true,
    decode: ({ by, at, digest }) => (digest === null ? { by, at } : { by, at, sealedAmountsDigest: digest }),
    encode: ({ by, at, sealedAmountsDigest }) => ({ by, at, digest: sealedAmountsDigest ?? null })
  }
)

/** A `batches` row, decoded into the API's Batch. */
export const BatchFromRow = fromRow(Batch, {
  ...Batch.fields,
  approvals: Schema.Array(ApprovalFromJson),
  sealedAmountsDigest: Schema.OptionFromNullOr(Schema.String),
  createdBy: Schema.OptionFromNullOr(Schema.String),
  readiedBy: Schema.OptionFromNullOr(Schema.String),
  cancelRequestedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  startedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  completedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
})

/** An optional time as the API writes it: absent when there is none. */
const isoOrAbsent = <K extends string>(key: K, value: Option.Option<DateTime.Utc>) =>
  Option.isSome(value) ? { [key]: DateTime.formatIso(value.value) } as { [P in K]: string } : undefined

/**
 * A `batches` row into the Batch, and the Batch as the API writes it, without Schema's decoder and encoder: the list
 * of batches reads up to 101 rows a request. Columns the service wrote or the database constrains are not checked
 * again. test/unit/row-codecs.test.ts holds both to `BatchFromRow` and `Batch`'s encoding on generated batches.
 */
export const batchFromRow = (row: typeof BatchFromRow.Encoded): Batch =>
  new Batch({
    id: row.id as BatchId,
    name: row.name,
    status: row.status,
    payoutCount: row.payoutCount,
    settledCount: row.settledCount,
    failedCount: row.failedCount,
    canceledCount: row.canceledCount,
    approvalsRequired: row.approvalsRequired,
    approvals: row.approvals.map((a) =>
      a.digest === null
        ? { by: a.by, at: DateTime.unsafeMake(a.at) }
        : { by: a.by, at: DateTime.unsafeMake(a.at), sealedAmountsDigest: a.digest }),
    sealedAmountsDigest: Option.fromNullable(row.sealedAmountsDigest),
    createdBy: Option.fromNullable(row.createdBy),
    readiedBy: Option.fromNullable(row.readiedBy),
    cancelRequestedAt: row.cancelRequestedAt === null ? Option.none() : Option.some(DateTime.unsafeFromDate(row.cancelRequestedAt)),
    createdAt: DateTime.unsafeFromDate(row.createdAt),
    startedAt: row.startedAt === null ? Option.none() : Option.some(DateTime.unsafeFromDate(row.startedAt)),
    completedAt: row.completedAt === null ? Option.none() : Option.some(DateTime.unsafeFromDate(row.completedAt))
  }, { disableValidation: true })

export const batchToJson = (batch: Batch): typeof Batch.Encoded => ({
  id: batch.id,
  name: batch.name,
  status: batch.status,
  payoutCount: batch.payoutCount,
  settledCount: batch.settledCount,
  failedCount: batch.failedCount,
  canceledCount: batch.canceledCount,
  approvalsRequired: batch.approvalsRequired,
  approvals: batch.approvals.map((a) =>
    a.sealedAmountsDigest === undefined
      ? { by: a.by, at: DateTime.formatIso(a.at) }
      : { by: a.by, at: DateTime.formatIso(a.at), sealedAmountsDigest: a.sealedAmountsDigest }),
  ...(Option.isSome(batch.sealedAmountsDigest) ? { sealedAmountsDigest: batch.sealedAmountsDigest.value } : undefined),
  ...(Option.isSome(batch.createdBy) ? { createdBy: batch.createdBy.value } : undefined),
  ...(Option.isSome(batch.readiedBy) ? { readiedBy: batch.readiedBy.value } : undefined),
  ...isoOrAbsent("cancelRequestedAt", batch.cancelRequestedAt),
  createdAt: DateTime.formatIso(batch.createdAt),
  ...isoOrAbsent("startedAt", batch.startedAt),
  ...isoOrAbsent("completedAt", batch.completedAt)
})

const PayoutFields = {
  id: PayoutId.annotations({ description: "The payout's id (the `payoutId` of a transfer that pays it)" }),
  batchId: BatchId.annotations({ description: "The batch it belongs to" }),
  contractorId: ContractorId.annotations({ description: "The contractor it pays" }),
  status: PayoutStatus.annotations({
    description: "`draft` in a draft batch, `ready` once the batch is; `submitted` when a transfer for it is recorded; " +
      "`settled` or `failed` when that transfer is final (a failed payout can be paid again); `canceled` when it was " +
      "canceled before a transfer for it was sent (it is never sponsored afterwards)"
  }),
  hash: Optional(Schema.String).annotations({ description: "The fee-bump hash of the transfer that paid it (or tried)" }),
  error: Optional(Schema.String).annotations({ description: "Why its last transfer failed" }),
  createdAt: Schema.DateTimeUtc.annotations({ description: "When it was added to the batch" }),
  updatedAt: Schema.DateTimeUtc.annotations({ description: "When its status last changed" })
}

/** The Payout example, also the example of the lists of payouts. */
export const examplePayout: Schema.Struct.Type<typeof PayoutFields> = {
  id: EXAMPLE_PAYOUT,
  batchId: EXAMPLE_BATCH,
  contractorId: EXAMPLE_CONTRACTOR,
  status: "settled",
  hash: Option.some("4142bd200f05c01eab15b78a49f33d71aeb7d2166fedc23c2a903fbb5628ed93"),
  error: Option.none(),
  createdAt: DateTime.unsafeMake("2026-11-20T14:05:40Z"),
  updatedAt: DateTime.unsafeMake("2026-11-24T09:30:08Z")
}

export class Payout extends Schema.Class<Payout>("Payout")(PayoutFields, documented(PayoutFields, {
  description: "One contractor's payout in a batch. No amount is stored: only the encrypted transfer carries it",
  examples: [examplePayout]
})) {}

/** A `payouts` row, decoded into the API's Payout. */
export const PayoutFromRow = fromRow(Payout, {
  ...Payout.fields,
  hash: Schema.OptionFromNullOr(Schema.String),
  error: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})

/** The payout's counterparts of `batchFromRow` and `batchToJson`, for the pages of a batch's payouts. */
export const payoutFromRow = (row: typeof PayoutFromRow.Encoded): Payout =>
  new Payout({
    id: row.id as PayoutId,
    batchId: row.batchId as BatchId,
    contractorId: row.contractorId as ContractorId,
    status: row.status,
    hash: Option.fromNullable(row.hash),
    error: Option.fromNullable(row.error),
    createdAt: DateTime.unsafeFromDate(row.createdAt),
    updatedAt: DateTime.unsafeFromDate(row.updatedAt)
  }, { disableValidation: true })

export const payoutToJson = (payout: Payout): typeof Payout.Encoded => ({
  id: payout.id,
  batchId: payout.batchId,
  contractorId: payout.contractorId,
  status: payout.status,
  ...(Option.isSome(payout.hash) ? { hash: payout.hash.value } : undefined),
  ...(Option.isSome(payout.error) ? { error: payout.error.value } : undefined),
  createdAt: DateTime.formatIso(payout.createdAt),
  updatedAt: DateTime.formatIso(payout.updatedAt)
})

const CreateBatchFields = {
  name: Schema.propertySignature(Name).annotations({ description: "The batch's name, 1 to 200 characters (trimmed)" })
}

export class CreateBatch extends Schema.Class<CreateBatch>("CreateBatch")(
  CreateBatchFields,
  documented(CreateBatchFields, { description: "A new payroll batch", examples: [{ name: "November 2026" }] })
) {}

const RejectBatchFields = {
  reason: Schema.propertySignature(
    Schema.Trim.pipe(
      Schema.minLength(1, { message: () => "reason must not be empty" }),
      Schema.maxLength(500, { message: () => "reason is at most 500 characters" })
    )
  ).annotations({ description: "Why the batch goes back to draft, 1 to 500 characters (trimmed): its webhook carries it" })
}

export class RejectBatch extends Schema.Class<RejectBatch>("RejectBatch")(
  RejectBatchFields,
  documented(RejectBatchFields, { description: "A rejection of a ready batch", examples: [{ reason: "Ada's payout belongs in December" }] })
) {}

const AddPayoutsFields = {
  contractorIds: Schema.propertySignature(
    Schema.Array(ContractorId).pipe(
      Schema.minItems(1, { message: () => "contractorIds must not be empty" }),
      Schema.maxItems(1000, { message: () => "at most 1000 contractors at once" })
    )
  ).annotations({
    description: "1 to 1,000 contractors of the organization, each `ready` and not yet in this batch, each given once"
  })
}

export class AddPayouts extends Schema.Class<AddPayouts>("AddPayouts")(
  AddPayoutsFields,
  documented(AddPayoutsFields, {
    description: "Contractors to pay in a draft batch",
    examples: [{ contractorIds: [EXAMPLE_CONTRACTOR] }]
  })
) {}

const BatchPageFields = Page(Batch).fields

export class BatchPage extends Schema.Class<BatchPage>("BatchPage")(BatchPageFields, documented(BatchPageFields, {
  description: "One page of batches, newest first",
  examples: [{ items: [new Batch(exampleBatch)], nextCursor: "MjAyNi0xMS0yMFQxNDowMjoxMS4wMDBafDBkOWMzYTUy" }]
})) {}

const PayoutPageFields = Page(Payout).fields

export class PayoutPage extends Schema.Class<PayoutPage>("PayoutPage")(PayoutPageFields, documented(PayoutPageFields, {
  description: "One page of a batch's payouts, newest first",
  examples: [{ items: [new Payout(examplePayout)], nextCursor: "WzE3OTU3MTI3NDAwMDAsIjdjMWQ4ZjNlLTI2YjQtNDk1Yi05YjBhLTVmNmU3ZDhjOWEwMSJd" }]
})) {}

export const ListPayoutsParams = Schema.Struct(PageParams)

export const ListBatchesParams = Schema.Struct({
  ...PageParams,
  status: Schema.optional(BatchStatus).annotations({ description: "Only batches in this status" })
})

const ContractorPayoutFields = {
  id: PayoutId.annotations({ description: "The payout's id" }),
  company: Schema.String.annotations({ description: "The name of the organization paying it" }),
  batchName: Schema.String.annotations({ description: "The name of its batch" }),
  status: PayoutStatus.annotations({
    description: "`ready` until a transfer for it is recorded, then `submitted`, then `settled` or `failed`"
  }),
  hash: Optional(Schema.String).annotations({
    description: "The fee-bump hash of its transfer: find it on the ledger, and decrypt the amount with your own keys"
  }),
  createdAt: Schema.DateTimeUtc.annotations({ description: "When the employer added it" }),
  updatedAt: Schema.DateTimeUtc.annotations({ description: "When its status last changed" })
}

/** The ContractorPayout example, also the example of the list of them. */
export const exampleContractorPayout: Schema.Struct.Type<typeof ContractorPayoutFields> = {
  id: EXAMPLE_PAYOUT,
  company: "Acme",
  batchName: "November 2026",
  status: "settled",
  hash: Option.some("4142bd200f05c01eab15b78a49f33d71aeb7d2166fedc23c2a903fbb5628ed93"),
  createdAt: DateTime.unsafeMake("2026-11-20T14:05:40Z"),
  updatedAt: DateTime.unsafeMake("2026-11-24T09:30:08Z")
}

export class ContractorPayout extends Schema.Class<ContractorPayout>("ContractorPayout")(
  ContractorPayoutFields,
  documented(ContractorPayoutFields, {
    description: "A payout as the contractor it pays sees it",
    examples: [exampleContractorPayout]
  })
) {}

/** A payout as its contractor sees it, with the paying organization's and the batch's names. */
export const ContractorPayoutFromRow = fromRow(ContractorPayout, {
  ...ContractorPayout.fields,
  hash: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})

const ContractorPayoutPageFields = Page(ContractorPayout).fields

export class ContractorPayoutPage extends Schema.Class<ContractorPayoutPage>("ContractorPayoutPage")(
  ContractorPayoutPageFields,
  documented(ContractorPayoutPageFields, {
    description: "One page of the contractor's own payouts, newest first",
    examples: [{
      items: [new ContractorPayout(exampleContractorPayout)],
      nextCursor: "WzE3OTU3MTI3NDAwMDAsIjdjMWQ4ZjNlLTI2YjQtNDk1Yi05YjBhLTVmNmU3ZDhjOWEwMSJd"
    }]
  })
) {}

export const ListContractorPayoutsParams = Schema.Struct(PageParams)

export class JobItem extends Schema.Class<JobItem>("JobItem")({
  signedXDR: Schema.propertySignature(SignedXdr).annotations({
    description: "A signed confidential transfer, exactly as POST /transfer takes it (base64 XDR)"
  }),
  payoutId: Schema.optional(PayoutId).annotations({ description: "The payout it pays, as in POST /transfer" })
}, { description: "One transfer of a batch run" }) {}

/** Items of one batch run; the body limit (MAX_BODY_BYTES) binds first for real transfers (6 of about 32 KB). */
export const MAX_BATCH_ITEMS = 100

const BatchRunFields = {
  transactions: Schema.propertySignature(
    Schema.Array(JobItem).pipe(
      Schema.minItems(1, { message: () => "transactions must not be empty" }),
      Schema.maxItems(MAX_BATCH_ITEMS, { message: () => `at most ${MAX_BATCH_ITEMS} transactions per batch run` })
    )
  ).annotations({
    description: `1 to 100 signed transfers; the whole body is at most ${MAX_BODY_KIB} KiB, which holds 6 real-size transfers`
  })
}

export class BatchRun extends Schema.Class<BatchRun>("BatchRun")(BatchRunFields, documented(BatchRunFields, {
  description: "Signed transfers to run in the background",
  examples: [{ transactions: [new JobItem({ signedXDR: EXAMPLE_XDR, payoutId: EXAMPLE_PAYOUT })] }]
})) {}

const JobAcceptedFields = {
  jobId: Schema.propertySignature(Schema.String).annotations({ description: "The job's id: follow it with GET /batch/{jobId}" })
}

export class JobAccepted extends Schema.Class<JobAccepted>("JobAccepted")(
  JobAcceptedFields,
  documented(JobAcceptedFields, {
    description: "The batch run is stored and queued",
    examples: [{ jobId: "2f7d4c9a-1b6e-4a3f-8d05-9c2e7b1a6f43" }]
  })
) {}

export class JobResult extends Schema.Class<JobResult>("JobResult")({
  i: Schema.propertySignature(Schema.Int).annotations({ description: "The item's index in `transactions` (from 0)" }),
  hash: Schema.propertySignature(Schema.String).annotations({
    description: "The fee-bump hash when the transaction reached the network, else the inner transaction's hash (empty " +
      "when the envelope could not be read)"
  }),
  status: Schema.propertySignature(Schema.String).annotations({
    description: "`SUCCESS` (on the ledger); `FAILED` (rejected or failed on the network); `TIMEOUT` (not final by its " +
      "deadline: it may still land); `ERROR` (Stellar RPC unreachable: followed in the background); `REFUSED` (it broke " +
      "a rule of POST /transfer and was not sent)"
  }),
  error: Schema.optional(Schema.String).annotations({ description: "Why, for every status but `SUCCESS`" })
}, { description: "The outcome of one item" }) {}

const BatchJobFields = {
  jobId: Schema.propertySignature(Schema.String).annotations({ description: "The job's id" }),
  createdAt: Schema.propertySignature(Schema.Number).annotations({ description: "When it was stored (epoch milliseconds)" }),
  results: Schema.propertySignature(Schema.Array(JobResult)).annotations({
    description: "The items that have an outcome so far, by index; the job is done when every item has one. An item " +
      "is reported from its transfer once that is final, so an `ERROR` or `TIMEOUT` can later read `SUCCESS`"
  }),
  error: Schema.optional(Schema.String).annotations({ description: "What stopped the job as a whole, if anything did" })
}

export class BatchJob extends Schema.Class<BatchJob>("BatchJob")(BatchJobFields, documented(BatchJobFields, {
  description: "A batch run and the outcome of each item so far",
  examples: [{
    jobId: "2f7d4c9a-1b6e-4a3f-8d05-9c2e7b1a6f43",
    createdAt: 1795505002000,
    results: [
      new JobResult({ i: 0, hash: "4142bd200f05c01eab15b78a49f33d71aeb7d2166fedc23c2a903fbb5628ed93", status: "SUCCESS" }),
      new JobResult({
        i: 1,
        hash: "c3dec3d2e0ae2b00ddf5d79d9f1531225b78a8c62aeaed88f46a1244e68239f9",
        status: "REFUSED",
        error: "the inner fee 20000000 exceeds the sponsor's cap of 10000000 stroops"
      })
    ]
  }]
})) {}
