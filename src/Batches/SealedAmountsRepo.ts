import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { fromRow } from "../Domain/Row.ts"
import { BatchId, OrgId } from "../Domain/Ids.ts"
import { MemberId } from "../Domain/Members.ts"
import { MemberRole } from "../Domain/Roles.ts"
import { SealedAmounts, SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { orUnavailable, undecodableDies } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

const SealedAmountsFromRow = fromRow(SealedAmounts, { ...SealedAmounts.fields, updatedAt: Schema.DateTimeUtcFromDate })

const Reader = Schema.Struct({ id: MemberId, role: MemberRole, sealingKey: Schema.NullOr(Schema.String) })
export type Reader = typeof Reader.Type

const Stored = Schema.Struct({
  batchId: BatchId,
  envelope: Schema.String,
  digest: Schema.String,
  updatedAt: Schema.DateFromSelf,
  updatedBy: Schema.String
})

/** A batch's sealed amounts (an envelope the service cannot open, and its digest), and who may be a recipient. */
export class SealedAmountsRepo extends Effect.Service<SealedAmountsRepo>()("Batches/SealedAmountsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findOne = SqlSchema.findOne({
      Request: BatchId,
      Result: SealedAmountsFromRow,
      execute: (id) => sql`SELECT envelope, digest, updated_at, updated_by FROM batch_sealed_amounts WHERE batch_id = ${id}`
    })
    /** The batch's sealed amounts; none when it has none. */
    const find = (id: BatchId) => findOne(id).pipe(undecodableDies, orUnavailable, Spans.withSpan("SealedAmountsRepo.find"))

    const lockOne = SqlSchema.findOne({
      Request: BatchId,
      Result: SealedAmountsFromRow,
      execute: (id) =>
        sql`SELECT envelope, digest, updated_at, updated_by FROM batch_sealed_amounts WHERE batch_id = ${id} FOR UPDATE`
    })
    /** The batch's sealed amounts, their row locked until the transaction ends (the write that follows checks against them). */
    const lock = (id: BatchId) => lockOne(id).pipe(undecodableDies, Spans.withSpan("SealedAmountsRepo.lock"))

    const upsert = SqlSchema.void({
      Request: Stored,
      execute: (row) =>
        sql`
          INSERT INTO batch_sealed_amounts (batch_id, envelope, digest, updated_at, updated_by)
          VALUES (${row.batchId}, ${row.envelope}::jsonb, ${row.digest}, ${row.updatedAt}, ${row.updatedBy})
          ON CONFLICT (batch_id) DO UPDATE SET envelope = EXCLUDED.envelope, digest = EXCLUDED.digest,
            updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`
    })
    /** Stores the envelope (inside the caller's transaction, the batch locked). */
    const store = (batchId: BatchId, envelope: SealedEnvelope, digest: string, updatedAt: Date, updatedBy: string) =>
      Effect.gen(function*() {
        const encoded = yield* Schema.encode(SealedEnvelope)(envelope)
        yield* upsert({ batchId, envelope: JSON.stringify(encoded), digest, updatedAt, updatedBy })
      }).pipe(undecodableDies, Spans.withSpan("SealedAmountsRepo.store"))

    /** Clears the batch's approvals: they were given for other amounts. How many there were. */
    const clearApprovals = (batchId: BatchId) =>
      sql`DELETE FROM batch_approvals WHERE batch_id = ${batchId} RETURNING member_sub`.pipe(
        Effect.map((rows) => rows.length),
        Spans.withSpan("SealedAmountsRepo.clearApprovals")
      )

    const readersOf = SqlSchema.findAll({
      Request: Schema.Struct({ orgId: OrgId, ids: Schema.Array(Schema.String) }),
      Result: Reader,
      execute: ({ orgId, ids }) =>
        sql`SELECT id, role, sealing_key FROM org_members WHERE org_id = ${orgId} AND id IN ${sql.in(ids)} FOR SHARE`
    })
    /**
     * The organization's members among `ids`, with their roles and sealing keys, their rows share-locked until the
     * transaction ends: a key published or a member removed meanwhile waits for the envelope checked against them.
     */
    const readers = (orgId: OrgId, ids: ReadonlyArray<string>) =>
      readersOf({ orgId, ids }).pipe(undecodableDies, Spans.withSpan("SealedAmountsRepo.readers"))

    return { find, lock, store, clearApprovals, readers } as const
  })
}) {}
