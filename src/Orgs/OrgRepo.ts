import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { randomUUID } from "node:crypto"
import { OrgId } from "../Domain/Ids.ts"
import { Membership, type Org, OrgFromRow } from "../Domain/Session.ts"
import { isUniqueViolation, orUnavailable, unavailableOrDie } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

export type { Membership } from "../Domain/Session.ts"

export class AlreadyMember extends Data.TaggedError("AlreadyMember") {}

const Claimed = Schema.Struct({ orgId: OrgId })
const Member = Schema.Struct({ userSub: Schema.String })

/** Organizations and who belongs to them; a user belongs to at most one. */
export class OrgRepo extends Effect.Service<OrgRepo>()("Auth/OrgRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const uniqueAsAlreadyMember = <A, R>(effect: Effect.Effect<A, SqlError | ParseError, R>) =>
      Effect.catchTags(effect, {
        SqlError: (e) => isUniqueViolation(e) ? Effect.fail(new AlreadyMember()) : unavailableOrDie(e),
        ParseError: Effect.die
      })

    const membershipOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Membership,
      execute: (sub) =>
        sql`
            SELECT m.org_id, o.name AS org_name, m.role
            FROM org_members m JOIN orgs o ON o.id = m.org_id
            WHERE m.user_sub = ${sub}`
    })
    const membership = (sub: string) => membershipOf(sub).pipe(orUnavailable, Spans.withSpan("OrgRepo.membership"))

    const addMember = (orgId: OrgId, userSub: string, role: Membership["role"]) =>
      sql`INSERT INTO org_members ${sql.insert({ orgId, userSub, role })}`

    const insertOrg = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, name: Schema.String, createdBy: Schema.String }),
      Result: OrgFromRow,
      execute: (row) => sql`INSERT INTO orgs ${sql.insert(row)} RETURNING id, name, created_at`
    })
    const create = (name: string, sub: string) =>
      Effect.gen(function*() {
        const org = yield* insertOrg({ id: randomUUID(), name, createdBy: sub }).pipe(Effect.catchTag("NoSuchElementException", Effect.die))
        yield* addMember(org.id, sub, "owner")
        return org
      }).pipe(sql.withTransaction, uniqueAsAlreadyMember, Spans.withSpan("OrgRepo.create"))

    const invite = (orgId: OrgId, tokenHash: Buffer, createdBy: string, expiresAt: Date) =>
      sql`INSERT INTO org_invites ${sql.insert({ id: randomUUID(), orgId, tokenHash, createdBy, expiresAt })}`.pipe(
        Effect.asVoid,
        orUnavailable,
        Spans.withSpan("OrgRepo.invite")
      )

    const claimInvite = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.Uint8ArrayFromSelf, sub: Schema.String, now: Schema.DateFromSelf }),
      Result: Claimed,
      execute: ({ tokenHash, sub, now }) =>
        sql`
              UPDATE org_invites SET accepted_at = ${now}, accepted_by = ${sub}
              WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND expires_at > ${now}
              RETURNING org_id`
    })
    const findOrg = SqlSchema.findOne({
      Request: OrgId,
      Result: OrgFromRow,
      execute: (id) => sql`SELECT id, name, created_at FROM orgs WHERE id = ${id}`
    })
    /** Claims an open invite and makes `sub` a member; none when the invite is unknown, used or expired. */
    const join = (tokenHash: Buffer, sub: string, now: Date) =>
      Effect.gen(function*() {
        const claimed = yield* claimInvite({ tokenHash, sub, now })
        if (Option.isNone(claimed)) return Option.none<Org>()
        yield* addMember(claimed.value.orgId, sub, "member")
        return yield* findOrg(claimed.value.orgId)
      }).pipe(sql.withTransaction, uniqueAsAlreadyMember, Spans.withSpan("OrgRepo.join"))

    const members = SqlSchema.findAll({
      Request: OrgId,
      Result: Member,
      execute: (orgId) => sql`SELECT user_sub FROM org_members WHERE org_id = ${orgId}`
    })
    /** The Stellar accounts of the organization's wallet members. */
    const memberAccounts = (orgId: OrgId) => members(orgId).pipe(Effect.map((rows) => rows.map((r) => r.userSub)), orUnavailable)

    return { membership, create, invite, join, memberAccounts } as const
  })
}) {}
