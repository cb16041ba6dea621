import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { ContractorStatus } from "../Domain/Contractor.ts"
import type { ContractorId, OrgId } from "../Domain/Ids.ts"
import { isUniqueViolation } from "../Sql/Errors.ts"

export interface ContractorRow {
  readonly id: ContractorId
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
  readonly createdAt: Date
  readonly lastPaidAt: Date | null
}

export type NewContractor =
  & Pick<ContractorRow, "orgId" | "name" | "email" | "address" | "pvk" | "auditorId" | "status" | "rateAmount" | "rateCurrency">
  & { readonly id: string }

export type ContractorChanges = Partial<
  Pick<ContractorRow, "name" | "email" | "address" | "pvk" | "auditorId" | "status" | "rateAmount" | "rateCurrency" | "userSub">
>

export class DuplicateContractor {
  readonly _tag = "DuplicateContractor"
}

export interface ListQuery {
  readonly limit: number
  readonly after: Option.Option<{ readonly createdAt: Date; readonly id: string }>
  readonly status: Option.Option<ContractorStatus>
  readonly q: Option.Option<string>
}

const COLUMNS = "id, org_id, name, email, address, pvk, auditor_id, status, rate_amount, rate_currency, user_sub, created_at, last_paid_at"

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The contractor directory's SQL; every query is scoped to one organization. */
export class ContractorRepo extends Effect.Service<ContractorRepo>()("Contractors/ContractorRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const uniqueAsDuplicate = <A, R>(effect: Effect.Effect<A, SqlError, R>) =>
      Effect.catchTag(effect, "SqlError", (e) => isUniqueViolation(e) ? Effect.fail(new DuplicateContractor()) : Effect.die(e))

    const insertMany = (rows: ReadonlyArray<NewContractor>) =>
      rows.length === 0
        ? Effect.succeed([] as ReadonlyArray<ContractorRow>)
        : sql<ContractorRow>`INSERT INTO contractors ${sql.insert(rows)} RETURNING ${columns}`.pipe(
          uniqueAsDuplicate,
          Effect.withSpan("ContractorRepo.insertMany", { attributes: { rows: rows.length } })
        )

    const findById = (orgId: OrgId, id: ContractorId) =>
      sql<ContractorRow>`SELECT ${columns} FROM contractors WHERE org_id = ${orgId} AND id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie,
        Effect.withSpan("ContractorRepo.findById")
      )

    /** Emails (lower-cased) and addresses of this organization that are already taken. */
    const taken = (orgId: OrgId, emails: ReadonlyArray<string>, addresses: ReadonlyArray<string>) =>
      sql<{ email: string | null; address: string | null }>`
        SELECT lower(email) AS email, address FROM contractors
        WHERE org_id = ${orgId}
          AND (lower(email) = ANY(${emails.map((e) => e.toLowerCase())}) OR address = ANY(${addresses}))`.pipe(
        Effect.map((rows) => ({
          emails: new Set(rows.flatMap((r) => r.email === null ? [] : [r.email])),
          addresses: new Set(rows.flatMap((r) => r.address === null ? [] : [r.address]))
        })),
        Effect.orDie,
        Effect.withSpan("ContractorRepo.taken")
      )

    const list = (orgId: OrgId, query: ListQuery) =>
      sql<ContractorRow>`
        SELECT ${columns} FROM contractors
        WHERE ${
        sql.and([
          sql`org_id = ${orgId}`,
          ...Option.toArray(Option.map(query.status, (status) => sql`status = ${status}`)),
          ...Option.toArray(Option.map(query.q, (q) => sql`(name ILIKE ${likePattern(q)} OR email ILIKE ${likePattern(q)})`)),
          ...Option.toArray(
            Option.map(query.after, (after) => sql`(created_at, id) < (${after.createdAt}, ${after.id})`)
          )
        ])
      }
        ORDER BY created_at DESC, id DESC
        LIMIT ${query.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("ContractorRepo.list"))

    /** Applies the changes when the contractor is still in `expectedStatus` (if given); none when it is not. */
    const update = (orgId: OrgId, id: ContractorId, changes: ContractorChanges, expectedStatus?: ContractorStatus) =>
      sql<ContractorRow>`
        UPDATE contractors SET ${sql.update({ ...changes, updatedAt: new Date() })}
        WHERE ${
        sql.and([
          sql`org_id = ${orgId}`,
          sql`id = ${id}`,
          ...(expectedStatus === undefined ? [] : [sql`status = ${expectedStatus}`])
        ])
      }
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        uniqueAsDuplicate,
        Effect.withSpan("ContractorRepo.update")
      )

    /** The contractor records a signed-in user is linked to, newest first. */
    const linkedTo = (sub: string) =>
      sql<ContractorRow>`
        SELECT ${columns} FROM contractors
        WHERE (user_sub = ${sub} OR address = ${sub}) AND status <> 'inactive'
        ORDER BY created_at DESC LIMIT 20`.pipe(Effect.orDie, Effect.withSpan("ContractorRepo.linkedTo"))

    return { insertMany, findById, taken, list, update, linkedTo } as const
  })
}) {}
