import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "../Sql/Errors.ts"

/**
 * The auditor id of the organization's escrow key, once it has one (issue 36 §2): the id its paying wallets register
 * under. Read with the SQL client alone, so that the sponsor's rules need no other service.
 */
export const orgAuditorId = (orgId: OrgId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly auditorId: string }>`SELECT auditor_id::text AS auditor_id FROM org_escrow_keys WHERE org_id = ${orgId} AND replaces IS NULL`
  ).pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => Number(row.auditorId))), orUnavailable)
