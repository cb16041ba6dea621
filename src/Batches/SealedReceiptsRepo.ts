import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { PayoutStatus } from "../Domain/Batch.ts"
import { BatchId, OrgId, PayoutId } from "../Domain/Ids.ts"
import { fromRow } from "../Domain/Row.ts"
import { SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { SealedReceipt } from "../Domain/SealedReceipts.ts"
import { orUnavailable, undecodableDies } from "../Sql/Errors.ts"
import type { KeysetQuery } from "../Sql/KeysetPage.ts"
import * as Spans from "../Observability/Spans.ts"

const RECEIPT = "payout_id, envelope, digest, updated_at, updated_by"

const ReceiptFromRow = fromRow(SealedReceipt, { ...SealedReceipt.fields, updatedAt: Schema.DateTimeUtcFromDate })

/** A receipt with the time it was first stored: the page's order. */
const PageRow = Schema.Struct({ ...SealedReceipt.fields, updatedAt: Schema.DateTimeUtcFromDate, createdAt: Schema.DateTimeUtcFromDate })

const Stored = Schema.Struct({
  payoutId: PayoutId,
  batchId: BatchId,
  envelope: Schema.String,
  digest: Schema.String,
  at: Schema.DateFromSelf,
  updatedBy: Schema.String
})

/** Payouts' sealed receipts (envelopes the service cannot open, with their digests), a batch at a time. */
export class SealedReceiptsRepo extends Effect.Service<SealedReceiptsRepo>()("Batches/SealedReceiptsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(RECEIPT)

    const payoutRow = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, batchId: BatchId, payoutId: PayoutId }),
      Result: Schema.Struct({ status: PayoutStatus }),
      execute: ({ orgId, batchId, payoutId }) =>
        sql`SELECT status FROM payouts WHERE id = ${payoutId} AND batch_id = ${batchId} AND org_id = ${orgId} FOR UPDATE`
    })
    /** The payout's status, its row locked until the transaction ends (a settlement waits); none when the batch has no such payout. */
    const lockPayout = (orgId: OrgId, batchId: BatchId, payoutId: PayoutId) =>
      payoutRow({ orgId, batchId, payoutId }).pipe(Effect.map(Option.map((row) => row.status)), undecodableDies)

    const findOne = SqlSchema.findOne({
      Request: Schema.Struct({ batchId: BatchId, payoutId: PayoutId }),
      Result: ReceiptFromRow,
      execute: ({ batchId, payoutId }) =>
        sql`SELECT ${columns} FROM payout_sealed_receipts WHERE payout_id = ${payoutId} AND batch_id = ${batchId}`
    })
    /** The payout's sealed receipt; none when it has none. */
    const find = (batchId: BatchId, payoutId: PayoutId) =>
      findOne({ batchId, payoutId }).pipe(undecodableDies, orUnavailable, Spans.withSpan("SealedReceiptsRepo.find"))

    const lockOne = SqlSchema.findOne({
      Request: Schema.Struct({ batchId: BatchId, payoutId: PayoutId }),
      Result: ReceiptFromRow,
      execute: ({ batchId, payoutId }) =>
        sql`SELECT ${columns} FROM payout_sealed_receipts WHERE payout_id = ${payoutId} AND batch_id = ${batchId} FOR UPDATE`
    })
    /** The payout's sealed receipt, its row locked until the transaction ends (the write that follows checks against it). */
    const lock = (batchId: BatchId, payoutId: PayoutId) =>
      lockOne({ batchId, payoutId }).pipe(undecodableDies, Spans.withSpan("SealedReceiptsRepo.lock"))

    const upsert = SqlSchema.void({
      Request: Stored,
      execute: (row) =>
        sql`
          INSERT INTO payout_sealed_receipts (payout_id, batch_id, envelope, digest, created_at, updated_at, updated_by)
          VALUES (${row.payoutId}, ${row.batchId}, ${row.envelope}::jsonb, ${row.digest}, ${row.at}, ${row.at}, ${row.updatedBy})
          ON CONFLICT (payout_id) DO UPDATE SET envelope = EXCLUDED.envelope, digest = EXCLUDED.digest,
            updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`
    })
    /** Stores the payout's receipt (inside the caller's transaction, the payout locked). */
    const store = (batchId: BatchId, payoutId: PayoutId, envelope: SealedEnvelope, digest: string, at: Date, updatedBy: string) =>
      Effect.gen(function*() {
        const encoded = yield* Schema.encode(SealedEnvelope)(envelope)
        yield* upsert({ payoutId, batchId, envelope: JSON.stringify(encoded), digest, at, updatedBy })
      }).pipe(undecodableDies, Spans.withSpan("SealedReceiptsRepo.store"))

    const pageRows = SqlSchema.findAll({
      Request: Schema.Struct({
        batchId: BatchId,
        limit: Schema.Number,
        after: Schema.OptionFromSelf(Schema.Struct({ createdAt: Schema.DateFromSelf, id: Schema.String }))
      }),
      Result: PageRow,
      execute: ({ batchId, limit, after }) =>
        sql`
          SELECT ${columns}, created_at FROM payout_sealed_receipts
          WHERE ${
          sql.and([
            sql`batch_id = ${batchId}`,
            ...Option.toArray(Option.map(after, (a) => sql`(created_at, payout_id) < (${a.createdAt}, ${a.id})`))
          ])
        }
          ORDER BY created_at DESC, payout_id DESC LIMIT ${limit + 1}`
    })
    /** One page of the batch's receipts, newest first (`limit + 1` rows, for `toPage`), each with its keyset position. */
    const page = (batchId: BatchId, query: KeysetQuery) =>
      pageRows({ batchId, limit: query.limit, after: query.after }).pipe(
        Effect.map((rows) =>
          rows.map(({ createdAt, ...fields }) => ({ receipt: new SealedReceipt(fields), createdAt, id: fields.payoutId as string }))
        ),
        undecodableDies,
        orUnavailable,
        Spans.withSpan("SealedReceiptsRepo.page")
      )

    return { lockPayout, find, lock, store, page } as const
  })
}) {}
