import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { Contractor, type ContractorChanges, contractorFromRow, ContractorStatus, type NewContractor } from "../Domain/Contractor.ts"
import { ContractorId, OrgId } from "../Domain/Ids.ts"
import { isUniqueViolation, orUnavailable, unavailableOrDie } from "../Sql/Errors.ts"
import { keysetPages, type KeysetQuery } from "../Sql/KeysetPage.ts"
import * as Spans from "../Observability/Spans.ts"

export class DuplicateContractor extends Data.TaggedError("DuplicateContractor") {}

export interface ListQuery extends KeysetQuery {
  readonly ids: Option.Option<ReadonlyArray<ContractorId>>
  readonly status: Option.Option<ContractorStatus>
  readonly q: Option.Option<string>
}

const COLUMNS = "id, org_id, name, email, address, pvk, auditor_id, status, rate, user_sub, created_at, last_paid_at"

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const StatusOf = Schema.Struct({ id: ContractorId, status: ContractorStatus })

const Taken = Schema.Struct({ email: Schema.NullOr(Schema.String), address: Schema.NullOr(Schema.String) })

/** Changes as columns: only the defined ones, encoded as the entity's update variant encodes them. */
const encodeChanges = Schema.encodeSync(Schema.partial(Contractor.update.pipe(Schema.omit("id", "orgId"))))

const definedOnly = (changes: ContractorChanges) =>
  Object.fromEntries(Object.entries(encodeChanges(changes)).filter(([key]) => (changes as Record<string, unknown>)[key] !== undefined))

/** The contractor directory's SQL; every query is scoped to one organization. Queries are built once. */
export class ContractorRepo extends Effect.Service<ContractorRepo>()("Contractors/ContractorRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const uniqueAsDuplicate = <A, R>(effect: Effect.Effect<A, SqlError | ParseError, R>) =>
      Effect.catchTags(effect, {
        SqlError: (e) => isUniqueViolation(e) ? Effect.fail(new DuplicateContractor()) : unavailableOrDie(e),
        ParseError: Effect.die
      })

    const insert = SqlSchema.findAll({
      Request: Schema.Array(Contractor.insert),
      Result: Contractor,
      execute: (rows) => sql`INSERT INTO contractors ${sql.insert(rows)} RETURNING ${columns}`
    })

    const insertMany = (rows: ReadonlyArray<NewContractor>) =>
      rows.length === 0
        ? Effect.succeed<ReadonlyArray<Contractor>>([])
        : insert(rows).pipe(uniqueAsDuplicate, Spans.withSpan("ContractorRepo.insertMany", { attributes: { rows: rows.length } }))

    const byId = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, id: ContractorId }),
      Result: Contractor,
      execute: ({ id, orgId }) => sql`SELECT ${columns} FROM contractors WHERE org_id = ${orgId} AND id = ${id}`
    })

    const findById = (orgId: OrgId, id: ContractorId) =>
      byId({ orgId, id }).pipe(orUnavailable, Spans.withSpan("ContractorRepo.findById"))

    const takenIn = SqlSchema.findAll({
      Request: Schema.Struct({ orgId: OrgId, emails: Schema.Array(Schema.String), addresses: Schema.Array(Schema.String) }),
      Result: Taken,
      execute: ({ addresses, emails, orgId }) =>
        sql`
          SELECT lower(email) AS email, address FROM contractors
          WHERE org_id = ${orgId} AND (lower(email) = ANY(${emails}) OR address = ANY(${addresses}))`
    })

    /** Emails (lower-cased) and addresses of this organization that are already taken. */
    const taken = (orgId: OrgId, emails: ReadonlyArray<string>, addresses: ReadonlyArray<string>) =>
      takenIn({ orgId, emails: emails.map((e) => e.toLowerCase()), addresses }).pipe(
        Effect.map((rows) => ({
          emails: new Set(rows.flatMap((r) => r.email === null ? [] : [r.email])),
          addresses: new Set(rows.flatMap((r) => r.address === null ? [] : [r.address]))
        })),
        orUnavailable,
        Spans.withSpan("ContractorRepo.taken")
      )

    const page = keysetPages(sql, { table: "contractors", columns: COLUMNS, fromRow: contractorFromRow })

    const list = (orgId: OrgId, query: ListQuery) =>
      page([
        sql`org_id = ${orgId}`,
        ...Option.toArray(Option.map(query.ids, (ids) => sql`id = ANY(${ids})`)),
        ...Option.toArray(Option.map(query.status, (status) => sql`status = ${status}`)),
        ...Option.toArray(Option.map(query.q, (q) => sql`(name ILIKE ${likePattern(q)} OR email ILIKE ${likePattern(q)})`))
      ], query).pipe(Spans.withSpan("ContractorRepo.list"))

    const decodeRow = Schema.decodeUnknown(Schema.Array(Contractor))

    /**
     * Applies the changes when the contractor is still in `expectedStatus` (if given); none when it is not. The
     * columns changed vary with the call, so the statement is put together per call; its decoder is built once.
     */
    const update = (orgId: OrgId, id: ContractorId, changes: ContractorChanges, now: Date, expectedStatus?: ContractorStatus) =>
      sql`
        UPDATE contractors SET ${sql.update({ ...definedOnly(changes), updatedAt: now })}
        WHERE ${
        sql.and([
          sql`org_id = ${orgId}`,
          sql`id = ${id}`,
          ...(expectedStatus === undefined ? [] : [sql`status = ${expectedStatus}`])
        ])
      }
        RETURNING ${columns}`.pipe(
        Effect.flatMap(decodeRow),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        uniqueAsDuplicate,
        Spans.withSpan("ContractorRepo.update")
      )

    const linked = SqlSchema.findAll({
      Request: Schema.String,
      Result: Contractor,
      execute: (sub) =>
        sql`
          SELECT ${columns} FROM contractors
          WHERE (user_sub = ${sub} OR address = ${sub}) AND status <> 'inactive'
          ORDER BY created_at DESC LIMIT 20`
    })

    /** The contractor records a signed-in user is linked to, newest first. */
    const linkedTo = (sub: string) => linked(sub).pipe(orUnavailable, Spans.withSpan("ContractorRepo.linkedTo"))

    const statusesOf = SqlSchema.findAll({
      Request: Schema.Struct({ orgId: OrgId, ids: Schema.Array(ContractorId) }),
      Result: StatusOf,
      execute: ({ ids, orgId }) => sql`SELECT id, status FROM contractors WHERE org_id = ${orgId} AND id = ANY(${ids})`
    })

    /** The statuses of those of `ids` that are contractors of the organization (inside a caller's transaction). */
    const statuses = (orgId: OrgId, ids: ReadonlyArray<ContractorId>) =>
      statusesOf({ orgId, ids }).pipe(Effect.catchTag("ParseError", Effect.die))

    /** A payout to the contractor settled (inside the settlement's transaction). */
    const markPaid = (id: ContractorId, now: Date) =>
      sql`UPDATE contractors SET last_paid_at = ${now} WHERE id = ${id}`.pipe(Effect.asVoid)

    return { insertMany, findById, taken, list, update, linkedTo, statuses, markPaid } as const
  })
}) {}
