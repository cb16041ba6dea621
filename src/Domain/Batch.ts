import { Schema } from "effect"
import { BatchId, ContractorId, PayoutId } from "./Ids.ts"
import { Page, PageParams } from "./Page.ts"
import { fromRow, Optional } from "./Row.ts"
import { Name } from "./Text.ts"
import { SignedXdr } from "./Transfer.ts"

export const BatchStatus = Schema.Literal("draft", "ready", "started", "completed")
export type BatchStatus = typeof BatchStatus.Type

export const PayoutStatus = Schema.Literal("draft", "ready", "submitted", "settled", "failed")
export type PayoutStatus = typeof PayoutStatus.Type

export class Batch extends Schema.Class<Batch>("Batch")({
  id: BatchId,
  name: Schema.String,
  status: BatchStatus,
  payoutCount: Schema.Int,
  settledCount: Schema.Int,
  failedCount: Schema.Int,
  createdAt: Schema.DateTimeUtc,
  startedAt: Optional(Schema.DateTimeUtc),
  completedAt: Optional(Schema.DateTimeUtc)
}) {}

/** A `batches` row, decoded into the API's Batch. */
export const BatchFromRow = fromRow(Batch, {
  ...Batch.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  startedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  completedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
})

export class Payout extends Schema.Class<Payout>("Payout")({
  id: PayoutId,
  batchId: BatchId,
  contractorId: ContractorId,
  status: PayoutStatus,
  hash: Optional(Schema.String),
  error: Optional(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}

/** A `payouts` row, decoded into the API's Payout. */
export const PayoutFromRow = fromRow(Payout, {
  ...Payout.fields,
  hash: Schema.OptionFromNullOr(Schema.String),
  error: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})

export class CreateBatch extends Schema.Class<CreateBatch>("CreateBatch")({ name: Name }) {}

export class AddPayouts extends Schema.Class<AddPayouts>("AddPayouts")({
  contractorIds: Schema.Array(ContractorId).pipe(
    Schema.minItems(1, { message: () => "contractorIds must not be empty" }),
    Schema.maxItems(1000, { message: () => "at most 1000 contractors at once" })
  )
}) {}

export class BatchPage extends Schema.Class<BatchPage>("BatchPage")(Page(Batch)) {}

export const ListBatchesParams = Schema.Struct({
  ...PageParams,
  status: Schema.optional(BatchStatus)
})

export class ContractorPayout extends Schema.Class<ContractorPayout>("ContractorPayout")({
  id: PayoutId,
  company: Schema.String,
  batchName: Schema.String,
  status: PayoutStatus,
  hash: Optional(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}

/** A payout as its contractor sees it, with the paying organization's and the batch's names. */
export const ContractorPayoutFromRow = fromRow(ContractorPayout, {
  ...ContractorPayout.fields,
  hash: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})

export class JobItem extends Schema.Class<JobItem>("JobItem")({
  signedXDR: SignedXdr,
  payoutId: Schema.optional(PayoutId)
}) {}

/** Every request body is at most this large (INTERFACE-SPEC §8). */
export const MAX_BODY_BYTES = 256 * 1024

/** Items of one batch run; the 256 KiB body limit binds first for real transfers (6 of about 32 KB). */
export const MAX_BATCH_ITEMS = 100

export class BatchRun extends Schema.Class<BatchRun>("BatchRun")({
  transactions: Schema.Array(JobItem).pipe(
    Schema.minItems(1, { message: () => "transactions must not be empty" }),
    Schema.maxItems(MAX_BATCH_ITEMS, { message: () => `at most ${MAX_BATCH_ITEMS} transactions per batch run` })
  )
}) {}

export class JobAccepted extends Schema.Class<JobAccepted>("JobAccepted")({ jobId: Schema.String }) {}

export class JobResult extends Schema.Class<JobResult>("JobResult")({
  i: Schema.Int,
  hash: Schema.String,
  status: Schema.String,
  error: Schema.optional(Schema.String)
}) {}

export class BatchJob extends Schema.Class<BatchJob>("BatchJob")({
  jobId: Schema.String,
  createdAt: Schema.Number,
  results: Schema.Array(JobResult),
  error: Schema.optional(Schema.String)
}) {}
