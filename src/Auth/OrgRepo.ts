import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { OrgId } from "../Domain/Ids.ts"
import { isUniqueViolation } from "../Sql/Errors.ts"

export interface Membership {
  readonly orgId: OrgId
  readonly orgName: string
  readonly role: "owner" | "member"
}

export class AlreadyMember {
  readonly _tag = "AlreadyMember"
}

/** Organizations and who belongs to them; a user belongs to at most one. */
export class OrgRepo extends Effect.Service<OrgRepo>()("Auth/OrgRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const membership = (sub: string) =>
      sql<Membership>`
        SELECT m.org_id, o.name AS org_name, m.role
        FROM org_members m JOIN orgs o ON o.id = m.org_id
        WHERE m.user_sub = ${sub}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie,
        Effect.withSpan("OrgRepo.membership")
      )

    const create = (name: string, sub: string) =>
      Effect.gen(function*() {
        const id = randomUUID()
        const [org] = yield* sql<{ id: OrgId; name: string; createdAt: Date }>`
          INSERT INTO orgs ${sql.insert({ id, name, createdBy: sub })} RETURNING id, name, created_at`
        yield* sql`INSERT INTO org_members ${sql.insert({ orgId: id, userSub: sub, role: "owner" })}`
        return org!
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(new AlreadyMember()) : Effect.die(e)),
        Effect.withSpan("OrgRepo.create")
      )

    const invite = (orgId: OrgId, tokenHash: Buffer, createdBy: string, expiresAt: Date) =>
      sql`INSERT INTO org_invites ${sql.insert({ id: randomUUID(), orgId, tokenHash, createdBy, expiresAt })}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("OrgRepo.invite")
      )

    /** Claims an open invite and makes `sub` a member; none when the invite is unknown, used or expired. */
    const join = (tokenHash: Buffer, sub: string, now: Date) =>
      Effect.gen(function*() {
        const claimed = yield* sql<{ orgId: OrgId }>`
          UPDATE org_invites SET accepted_at = ${now}, accepted_by = ${sub}
          WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND expires_at > ${now}
          RETURNING org_id`
        const row = claimed[0]
        if (row === undefined) return Option.none<{ id: OrgId; name: string; createdAt: Date }>()
        yield* sql`INSERT INTO org_members ${sql.insert({ orgId: row.orgId, userSub: sub, role: "member" })}`
        const [org] = yield* sql<{ id: OrgId; name: string; createdAt: Date }>`SELECT id, name, created_at FROM orgs WHERE id = ${row.orgId}`
        return Option.fromNullable(org)
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(new AlreadyMember()) : Effect.die(e)),
        Effect.withSpan("OrgRepo.join")
      )

    /** The Stellar accounts of the organization's wallet members. */
    const memberAccounts = (orgId: OrgId) =>
      sql<{ userSub: string }>`SELECT user_sub FROM org_members WHERE org_id = ${orgId}`.pipe(
        Effect.map((rows) => rows.map((r) => r.userSub)),
        Effect.orDie
      )

    return { membership, create, invite, join, memberAccounts } as const
  })
}) {}
