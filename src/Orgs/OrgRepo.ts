import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { randomUUID } from "node:crypto"
import { OrgId } from "../Domain/Ids.ts"
import { MemberFromRow, MemberId } from "../Domain/Members.ts"
import { MemberRole } from "../Domain/Roles.ts"
import { Membership, type Org, OrgFromRow } from "../Domain/Session.ts"
import { keysetPages, type KeysetQuery } from "../Sql/KeysetPage.ts"
import { isUniqueViolation, orUnavailable, unavailableOrDie, undecodableDies } from "../Sql/Errors.ts"
import * as Spans from "../Observability/Spans.ts"

export type { Membership } from "../Domain/Session.ts"

export class AlreadyMember extends Data.TaggedError("AlreadyMember") {}

/** Another membership published this sealing key (migration 0027's unique index). */
export class SealingKeyTaken extends Data.TaggedError("SealingKeyTaken") {}

const Claimed = Schema.Struct({ orgId: OrgId, role: MemberRole })
const Account = Schema.Struct({ userSub: Schema.String })
const Settings = Schema.Struct({ approvalsRequired: Schema.Int })
const OfOrg = Schema.Struct({ orgId: OrgId, id: MemberId })


/** Organizations, who belongs to them and as what (a user belongs to at most one), and their payroll settings. */
export class OrgRepo extends Effect.Service<OrgRepo>()("Orgs/OrgRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Runs `effect` (calls of this repo and the audit trail) in one transaction. */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", unavailableOrDie))

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
            SELECT m.id AS member_id, m.org_id, o.name AS org_name, m.role,
              coalesce((SELECT s.approvals_required FROM org_settings s WHERE s.org_id = m.org_id), 0) AS approvals_required
            FROM org_members m JOIN orgs o ON o.id = m.org_id
            WHERE m.user_sub = ${sub}`
    })
    const membership = (sub: string) => membershipOf(sub).pipe(orUnavailable, Spans.withSpan("OrgRepo.membership"))

    const addMember = (orgId: OrgId, userSub: string, role: MemberRole) =>
      sql`INSERT INTO org_members ${sql.insert({ orgId, userSub, role })} RETURNING id`.pipe(
        Effect.map((rows) => String(rows[0]?.id))
      )

    const insertOrg = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, name: Schema.String, createdBy: Schema.String }),
      Result: OrgFromRow,
      execute: (row) => sql`INSERT INTO orgs ${sql.insert(row)} RETURNING id, name, created_at`
    })
    /** A new organization with `sub` as its owner; the owner's membership id with it. */
    const create = (name: string, sub: string) =>
      Effect.gen(function*() {
        const org = yield* insertOrg({ id: randomUUID(), name, createdBy: sub }).pipe(Effect.catchTag("NoSuchElementException", Effect.die))
        const memberId = yield* addMember(org.id, sub, "owner")
        return { org, memberId }
      }).pipe(uniqueAsAlreadyMember, Spans.withSpan("OrgRepo.create"))

    const invite = (orgId: OrgId, tokenHash: Buffer, createdBy: string, expiresAt: Date, role: MemberRole) =>
      sql`INSERT INTO org_invites ${sql.insert({ id: randomUUID(), orgId, tokenHash, createdBy, expiresAt, role })} RETURNING id`.pipe(
        Effect.map((rows) => String(rows[0]?.id)),
        undecodableDies,
        Spans.withSpan("OrgRepo.invite")
      )

    const claimInvite = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.Uint8ArrayFromSelf, sub: Schema.String, now: Schema.DateFromSelf }),
      Result: Claimed,
      execute: ({ tokenHash, sub, now }) =>
        sql`
              UPDATE org_invites SET accepted_at = ${now}, accepted_by = ${sub}
              WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND expires_at > ${now}
              RETURNING org_id, role`
    })
    const findOrg = SqlSchema.findOne({
      Request: OrgId,
      Result: OrgFromRow,
      execute: (id) => sql`SELECT id, name, created_at FROM orgs WHERE id = ${id}`
    })
    /** Claims an open invite and makes `sub` a member with its role; none when the invite is unknown, used or expired. */
    const join = (tokenHash: Buffer, sub: string, now: Date) =>
      Effect.gen(function*() {
        const claimed = yield* claimInvite({ tokenHash, sub, now })
        if (Option.isNone(claimed)) return Option.none<{ org: Org; memberId: string; role: MemberRole }>()
        const memberId = yield* addMember(claimed.value.orgId, sub, claimed.value.role)
        const org = yield* findOrg(claimed.value.orgId)
        return Option.map(org, (o) => ({ org: o, memberId, role: claimed.value.role }))
      }).pipe(uniqueAsAlreadyMember, Spans.withSpan("OrgRepo.join"))

    const accounts = SqlSchema.findAll({
      Request: OrgId,
      Result: Account,
      execute: (orgId) => sql`SELECT user_sub FROM org_members WHERE org_id = ${orgId}`
    })
    /** The Stellar accounts of the organization's wallet members. */
    const memberAccounts = (orgId: OrgId) => accounts(orgId).pipe(Effect.map((rows) => rows.map((r) => r.userSub)), orUnavailable)

    const page = keysetPages(sql, { table: "org_members", columns: "id, user_sub, role, created_at, sealing_key", Row: MemberFromRow })
    /** One page of the organization's members, newest first (`limit + 1` rows, see keysetPages). */
    const members = (orgId: OrgId, query: KeysetQuery) => page([sql`org_id = ${orgId}`], query).pipe(Spans.withSpan("OrgRepo.members"))

    const lockMember = SqlSchema.findOne({
      Request: OfOrg,
      Result: MemberFromRow,
      execute: ({ orgId, id }) =>
        sql`SELECT id, user_sub, role, created_at, sealing_key FROM org_members WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`
    })
    /** Locks a member (inside a transaction); none when the organization has no such member. */
    const member = (orgId: OrgId, id: MemberId) => lockMember({ orgId, id }).pipe(undecodableDies)

    /**
     * How many owners the organization has, every owner's row locked until the transaction ends: two changes that
     * could each leave the last owner out are serialized here.
     */
    const lockOwners = (orgId: OrgId) =>
      sql`SELECT id FROM org_members WHERE org_id = ${orgId} AND role = 'owner' FOR UPDATE`.pipe(Effect.map((rows) => rows.length))

    const setRole = (orgId: OrgId, id: MemberId, role: MemberRole) =>
      sql`UPDATE org_members SET role = ${role} WHERE org_id = ${orgId} AND id = ${id}`.pipe(Effect.asVoid)

    const removeMember = (orgId: OrgId, id: MemberId) =>
      sql`DELETE FROM org_members WHERE org_id = ${orgId} AND id = ${id}`.pipe(Effect.asVoid)

    const publishKey = SqlSchema.findOne({
      Request: Schema.Struct({ orgId: OrgId, sub: Schema.String, key: Schema.String, now: Schema.DateFromSelf }),
      Result: Schema.Struct({ id: MemberId, previous: Schema.NullOr(Schema.String) }),
      execute: ({ orgId, sub, key, now }) =>
        sql`
          WITH prev AS (SELECT id, sealing_key FROM org_members WHERE org_id = ${orgId} AND user_sub = ${sub} FOR UPDATE)
          UPDATE org_members m SET sealing_key = ${key}, sealing_key_at = ${now}
          FROM prev WHERE m.id = prev.id
          RETURNING m.id, prev.sealing_key AS previous`
    })
    /**
     * Sets the member's sealing key; the key it replaced (null: none), or none when `sub` is not a member any more;
     * SealingKeyTaken when another membership, of any organization, published it.
     */
    const setSealingKey = (orgId: OrgId, sub: string, key: string, now: Date) =>
      publishKey({ orgId, sub, key, now }).pipe(
        Effect.catchTags({
          SqlError: (e) => isUniqueViolation(e) ? Effect.fail(new SealingKeyTaken()) : Effect.fail(e),
          ParseError: Effect.die
        }),
        Spans.withSpan("OrgRepo.setSealingKey")
      )

    const settingsOf = SqlSchema.findOne({
      Request: OrgId,
      Result: Settings,
      execute: (orgId) => sql`SELECT approvals_required FROM org_settings WHERE org_id = ${orgId}`
    })
    /** How many approvals a batch needs before its payouts are sponsored (0 until an organization says otherwise). */
    const approvalsRequired = (orgId: OrgId) =>
      settingsOf(orgId).pipe(
        Effect.map(Option.match({ onNone: () => 0, onSome: (s) => s.approvalsRequired })),
        orUnavailable,
        Spans.withSpan("OrgRepo.approvalsRequired")
      )

    const setApprovalsRequired = (orgId: OrgId, value: number, now: Date) =>
      Effect.gen(function*() {
        const before = yield* settingsOf(orgId)
        yield* sql`
          INSERT INTO org_settings (org_id, approvals_required, updated_at) VALUES (${orgId}, ${value}, ${now})
          ON CONFLICT (org_id) DO UPDATE SET approvals_required = EXCLUDED.approvals_required, updated_at = EXCLUDED.updated_at`
        return Option.match(before, { onNone: () => 0, onSome: (s) => s.approvalsRequired })
      }).pipe(undecodableDies)

    return {
      transaction,
      membership,
      create,
      invite,
      join,
      memberAccounts,
      members,
      member,
      lockOwners,
      setRole,
      removeMember,
      setSealingKey,
      approvalsRequired,
      setApprovalsRequired
    } as const
  })
}) {}
