import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { OrgId } from "../Domain/Ids.ts"
import { SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { orUnavailable, unavailableOrDie, undecodableDies } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"
import { EscrowKey, EscrowKeyId } from "./EscrowKey.ts"

/** A row as the list reads it: `current` and `valid_until_ledger` come from the key that replaces it, if any. */
const EscrowKeyFromRow = Schema.transform(
  Schema.Struct({
    ...EscrowKey.fields,
    auditorId: Schema.NumberFromString,
    replaces: Schema.OptionFromNullOr(EscrowKeyId),
    validFromLedger: Schema.OptionFromNullOr(Schema.NumberFromString),
    validUntilLedger: Schema.OptionFromNullOr(Schema.NumberFromString),
    createdAt: Schema.DateTimeUtcFromDate,
    updatedAt: Schema.DateTimeUtcFromDate
  }),
  Schema.typeSchema(EscrowKey),
  { strict: false, decode: (row) => new EscrowKey(row as never), encode: (key) => key }
)

const Stored = Schema.Struct({
  id: EscrowKeyId,
  orgId: OrgId,
  auditorId: Schema.Number,
  point: Schema.String,
  version: Schema.Number,
  envelope: Schema.String,
  digest: Schema.String,
  replaces: Schema.NullOr(EscrowKeyId),
  validFromLedger: Schema.NullOr(Schema.Number),
  at: Schema.DateFromSelf,
  by: Schema.String
})
export type StoredEscrowKey = Omit<typeof Stored.Type, "envelope"> & { readonly envelope: SealedEnvelope }

/** The organization's escrow keys: public points, auditor ids and sealed secrets, never a secret in clear. */
export class EscrowRepo extends Effect.Service<EscrowRepo>()("Escrow/EscrowRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = () => sql`
      SELECT k.id, k.auditor_id::text AS auditor_id, k.point, k.version, k.envelope, k.digest, k.replaces,
        k.valid_from_ledger::text AS valid_from_ledger, n.valid_from_ledger::text AS valid_until_ledger,
        (n.id IS NULL) AS current, k.created_at, k.created_by, k.updated_at, k.updated_by
      FROM org_escrow_keys k LEFT JOIN org_escrow_keys n ON n.replaces = k.id`

    const listAll = SqlSchema.findAll({
      Request: OrgId,
      Result: EscrowKeyFromRow,
      execute: (orgId) => sql`${columns()} WHERE k.org_id = ${orgId} ORDER BY k.created_at, k.id`
    })
    /** The organization's keys, oldest first. */
    const list = (orgId: OrgId) => listAll(orgId).pipe(undecodableDies, orUnavailable, Spans.withSpan("EscrowRepo.list"))

    const lockOne = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, id: EscrowKeyId }),
      Result: EscrowKeyFromRow,
      execute: ({ id, orgId }) => sql`${columns()} WHERE k.org_id = ${orgId} AND k.id = ${id} FOR UPDATE OF k`
    })
    /** One key of the organization, its row locked until the transaction ends. */
    const lock = (orgId: OrgId, id: EscrowKeyId) => lockOne({ orgId, id }).pipe(undecodableDies, Spans.withSpan("EscrowRepo.lock"))

    const lockOrg = (orgId: OrgId) =>
      sql`SELECT id FROM orgs WHERE id = ${orgId} FOR UPDATE`.pipe(Effect.asVoid, Spans.withSpan("EscrowRepo.lockOrg"))

    const insertRow = SqlSchema.void({
      Request: Stored,
      execute: (row) => sql`
        INSERT INTO org_escrow_keys (id, org_id, auditor_id, point, version, envelope, digest, replaces, valid_from_ledger,
          created_at, created_by, updated_at, updated_by)
        VALUES (${row.id}, ${row.orgId}, ${row.auditorId}, ${row.point}, ${row.version}, ${row.envelope}::jsonb, ${row.digest},
          ${row.replaces}, ${row.validFromLedger}, ${row.at}, ${row.by}, ${row.at}, ${row.by})`
    })
    /** Stores a key (inside the caller's transaction); a unique violation (an id or point taken) fails as SqlError. */
    const insert = (key: StoredEscrowKey) =>
      Effect.gen(function*() {
        const envelope = JSON.stringify(yield* Schema.encode(SealedEnvelope)(key.envelope))
        yield* insertRow({ ...key, envelope })
      }).pipe(Effect.catchTag("ParseError", Effect.die), Spans.withSpan("EscrowRepo.insert"))

    const updateEnvelope = (id: EscrowKeyId, envelope: SealedEnvelope, at: Date, by: string) =>
      Effect.gen(function*() {
        const encoded = JSON.stringify(yield* Schema.encode(SealedEnvelope)(envelope))
        yield* sql`UPDATE org_escrow_keys SET envelope = ${encoded}::jsonb, updated_at = ${at}, updated_by = ${by} WHERE id = ${id}`
      }).pipe(Effect.catchTag("ParseError", Effect.die), Spans.withSpan("EscrowRepo.updateEnvelope"))

    /** Runs `effect` in one transaction. */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))

    return { list, lock, lockOrg, insert, updateEnvelope, transaction } as const
  })
}) {}
