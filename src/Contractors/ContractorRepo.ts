import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { ContractorRecord, ContractorStatus } from "../Domain/Contractor.ts"
import { ContractorId, type OrgId } from "../Domain/Ids.ts"
import { isUniqueViolation, orUnavailable, unavailableOrDie } from "../Sql/Errors.ts"
import { keysetPage, type KeysetQuery } from "../Sql/KeysetPage.ts"

/** The columns a contractor is written with (its rate as two columns). */
export interface ContractorColumns {
  readonly orgId: OrgId
  readonly name: string
  readonly email: string | null
  readonly address: string | null
  readonly pvk: string | null
  readonly auditorId: number | null
  readonly status: ContractorStatus
  readonly rateAmount: string | null
  readonly rateCurrency: string | null
  readonly userSub: string | null
}

export type NewContractor = Omit<ContractorColumns, "userSub"> & { readonly id: string }

/** The columns to change; an absent or undefined one stays as it is. */
export type ContractorChanges = { readonly [K in Exclude<keyof ContractorColumns, "orgId">]?: ContractorColumns[K] | undefined }

export class DuplicateContractor extends Data.TaggedError("DuplicateContractor") {}

export interface ListQuery extends KeysetQuery {
  readonly status: Option.Option<ContractorStatus>
  readonly q: Option.Option<string>
}

const COLUMNS = `id, org_id, name, email, address, pvk, auditor_id, status, user_sub, created_at, last_paid_at,
  CASE WHEN rate_amount IS NULL THEN NULL ELSE json_build_object('amount', rate_amount, 'currency', rate_currency) END AS rate`

const definedOnly = (changes: ContractorChanges) =>
  Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const StatusOf = Schema.Struct({ id: ContractorId, status: ContractorStatus })

const Taken = Schema.Struct({ email: Schema.NullOr(Schema.String), address: Schema.NullOr(Schema.String) })

/** The contractor directory's SQL; every query is scoped to one organization. */
export class ContractorRepo extends Effect.Service<ContractorRepo>()("Contractors/ContractorRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const uniqueAsDuplicate = <A, R>(effect: Effect.Effect<A, SqlError | ParseError, R>) =>
      Effect.catchTags(effect, {
        SqlError: (e) => isUniqueViolation(e) ? Effect.fail(new DuplicateContractor()) : unavailableOrDie(e),
        ParseError: Effect.die
      })

    const insertMany = (rows: ReadonlyArray<NewContractor>) =>
      rows.length === 0
        ? Effect.succeed<ReadonlyArray<ContractorRecord>>([])
        : SqlSchema.findAll({
          Request: Schema.Void,
          Result: ContractorRecord,
          execute: () => sql`INSERT INTO contractors ${sql.insert(rows)} RETURNING ${columns}`
        })(undefined).pipe(
          uniqueAsDuplicate,
          Effect.withSpan("ContractorRepo.insertMany", { attributes: { rows: rows.length } })
        )

    const findById = (orgId: OrgId, id: ContractorId) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: ContractorRecord,
        execute: () => sql`SELECT ${columns} FROM contractors WHERE org_id = ${orgId} AND id = ${id}`
      })(undefined).pipe(orUnavailable, Effect.withSpan("ContractorRepo.findById"))

    /** Emails (lower-cased) and addresses of this organization that are already taken. */
    const taken = (orgId: OrgId, emails: ReadonlyArray<string>, addresses: ReadonlyArray<string>) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: Taken,
        execute: () =>
          sql`
            SELECT lower(email) AS email, address FROM contractors
            WHERE org_id = ${orgId}
              AND (lower(email) = ANY(${emails.map((e) => e.toLowerCase())}) OR address = ANY(${addresses}))`
      })(undefined).pipe(
        Effect.map((rows) => ({
          emails: new Set(rows.flatMap((r) => r.email === null ? [] : [r.email])),
          addresses: new Set(rows.flatMap((r) => r.address === null ? [] : [r.address]))
        })),
        orUnavailable,
        Effect.withSpan("ContractorRepo.taken")
      )

    const list = (orgId: OrgId, query: ListQuery) =>
      keysetPage(sql, {
        table: "contractors",
        columns: COLUMNS,
        Row: ContractorRecord,
        filters: [
          sql`org_id = ${orgId}`,
          ...Option.toArray(Option.map(query.status, (status) => sql`status = ${status}`)),
          ...Option.toArray(Option.map(query.q, (q) => sql`(name ILIKE ${likePattern(q)} OR email ILIKE ${likePattern(q)})`))
        ]
      })(query).pipe(Effect.withSpan("ContractorRepo.list"))

    /** Applies the changes when the contractor is still in `expectedStatus` (if given); none when it is not. */
    const update = (
      orgId: OrgId,
      id: ContractorId,
      changes: ContractorChanges,
      now: Date,
      expectedStatus?: ContractorStatus
    ) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: ContractorRecord,
        execute: () =>
          sql`
            UPDATE contractors SET ${sql.update({ ...definedOnly(changes), updatedAt: now })}
            WHERE ${
            sql.and([
              sql`org_id = ${orgId}`,
              sql`id = ${id}`,
              ...(expectedStatus === undefined ? [] : [sql`status = ${expectedStatus}`])
            ])
          }
            RETURNING ${columns}`
      })(undefined).pipe(
        uniqueAsDuplicate,
        Effect.withSpan("ContractorRepo.update")
      )

    /** The contractor records a signed-in user is linked to, newest first. */
    const linkedTo = (sub: string) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: ContractorRecord,
        execute: () =>
          sql`
            SELECT ${columns} FROM contractors
            WHERE (user_sub = ${sub} OR address = ${sub}) AND status <> 'inactive'
            ORDER BY created_at DESC LIMIT 20`
      })(undefined).pipe(orUnavailable, Effect.withSpan("ContractorRepo.linkedTo"))

    /** The statuses of those of `ids` that are contractors of the organization (inside a caller's transaction). */
    const statuses = (orgId: OrgId, ids: ReadonlyArray<ContractorId>) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: StatusOf,
        execute: () => sql`SELECT id, status FROM contractors WHERE org_id = ${orgId} AND id = ANY(${ids})`
      })(undefined).pipe(Effect.catchTag("ParseError", Effect.die))

    /** A payout to the contractor settled (inside the settlement's transaction). */
    const markPaid = (id: ContractorId, now: Date) =>
      sql`UPDATE contractors SET last_paid_at = ${now} WHERE id = ${id}`.pipe(Effect.asVoid)

    return { insertMany, findById, taken, list, update, linkedTo, statuses, markPaid } as const
  })
}) {}
