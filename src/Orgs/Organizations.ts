import { Array, Clock, DateTime, Effect, Option } from "effect"
import { hashToken, INVITE_TTL_MS, newInviteToken } from "./InviteToken.ts"
import type { Actor } from "../Domain/Actor.ts"
import { Conflict, Forbidden, NotFound, notFound } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { type ListMembersParams, Member, type MemberId, MemberPage, OrgSettings } from "../Domain/Members.ts"
import { effectivePermissions, type MemberRole, type Permission } from "../Domain/Roles.ts"
import { CurrentSession, Me, OrgInvitation, type Session } from "../Domain/Session.ts"
import { decodeCursor, toPage } from "../Http/Cursor.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { ContractorRoles } from "./ContractorRoles.ts"
import { OrgRepo } from "./OrgRepo.ts"
import { orgPolicy } from "./Policy.ts"
import * as Spans from "../Observability/Spans.ts"

const inviteGone = new NotFound({ error: "invite not found, already used or expired" })
const noOrganization = new Forbidden({ error: "this route needs an employer: create an organization first" })
const alreadyMember = () => Effect.fail(new Conflict({ error: "you already belong to an organization" }))

/**
 * Organizations and who belongs to them as what: the one place that decides who acts for an organization and with
 * which permissions (`actorOf`, `authorize`: 403 naming the permission missing), onboarding, members and their
 * roles, invites, the payroll settings, and who the signed-in user is to the service (`GET /me`).
 */
export class Organizations extends Effect.Service<Organizations>()("Orgs/Organizations", {
  effect: Effect.gen(function*() {
    const orgs = yield* OrgRepo
    const contractors = yield* ContractorRoles
    const audit = yield* AuditTrail
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * The member acting: a session's own role, or an API key's narrowed to its role within its creator's role as it
     * is now (a removed creator's key acts for no one; a demoted one's loses what they lost). 403 without one.
     */
    const actorOf = (session: Session) =>
      Effect.gen(function*() {
        const membership = yield* orgs.membership(session.sub)
        if (Option.isNone(membership)) return yield* noOrganization
        const m = membership.value
        const key = session.apiKey
        if (key !== undefined && key.orgId !== m.orgId) return yield* noOrganization
        const actor: Actor = {
          orgId: m.orgId,
          sub: session.sub,
          memberId: m.memberId,
          role: m.role,
          permissions: effectivePermissions(m.role, key?.role ?? null),
          audit: key === undefined ? { type: "member", id: session.sub } : { type: "apiKey", id: key.id },
          approvalsRequired: m.approvalsRequired
        }
        return actor
      })

    /** The caller's organization; 403 for a session that belongs to none. */
    const employerOrg = (session: Session) => Effect.map(actorOf(session), (actor) => actor.orgId)

    /** The signed-in member, when their role grants one of `permissions`; else 403 naming them. */
    const authorizeAny = (...permissions: readonly [Permission, ...Array<Permission>]) =>
      CurrentSession.pipe(
        Effect.flatMap(actorOf),
        Effect.filterOrFail(
          (actor) => permissions.some((p) => actor.permissions.includes(p)),
          (actor) => new Forbidden({ error: `this needs the permission ${permissions.join(" or ")}, which the role ${actor.role} does not grant` })
        )
      )

    /** The signed-in member, when their role grants `permission`; else 403 naming it. */
    const authorize = (permission: Permission) => authorizeAny(permission)

    const me = Spans.fn("Organizations.me")(function*(session: Session, inviteToken: string | undefined) {
      const membership = yield* orgs.membership(session.sub)
      const linked = yield* contractors.linkedTo(session.sub)
      const invite = yield* contractors.pendingInvite(session, inviteToken)
      const roles = [
        ...(Option.isSome(membership) ? ["employer" as const] : []),
        ...(linked.length > 0 ? ["contractor" as const] : [])
      ]
      return new Me({
        sub: session.sub,
        method: session.method,
        roles,
        needsOnboarding: roles.length === 0 && Option.isNone(invite),
        employer: Option.getOrUndefined(Option.map(membership, (m) => ({
          orgId: m.orgId,
          orgName: m.orgName,
          role: m.role,
          permissions: effectivePermissions(m.role, session.apiKey?.role ?? null)
        }))),
        contractor: Option.getOrUndefined(Option.map(Array.head(linked), (c) => ({ id: c.id, name: c.name, status: c.status }))),
        invite: Option.getOrUndefined(
          Option.map(invite, (i) => ({ company: i.company, role: "contractor" as const, token: i.token }))
        )
      })
    })

    const createOrg = Spans.fn("Organizations.createOrg")(function*(session: Session, name: string) {
      const { org } = yield* orgs.transaction(Effect.gen(function*() {
        const created = yield* orgs.create(name, session.sub)
        const actor = { type: "member" as const, id: session.sub }
        yield* audit.appendAll([
          { orgId: created.org.id, actor, action: "org.created", subject: { type: "org", id: created.org.id } },
          { orgId: created.org.id, actor, action: "member.joined", subject: { type: "member", id: created.memberId }, to: "owner" }
        ])
        return created
      })).pipe(Effect.catchTag("AlreadyMember", alreadyMember))
      return org
    })

    const acceptInvite = Spans.fn("Organizations.acceptInvite")(function*(session: Session, token: string, pvk: string | undefined) {
      return yield* contractors.acceptInvite(session, token, pvk)
    })

    const inviteMember = Spans.fn("Organizations.inviteMember")(function*(actor: Actor, role: MemberRole) {
      yield* orgPolicy.mayGrant(actor, role)
      const token = newInviteToken()
      const expiresAt = DateTime.add(yield* DateTime.now, { millis: INVITE_TTL_MS })
      yield* orgs.transaction(Effect.gen(function*() {
        const id = yield* orgs.invite(actor.orgId, hashToken(token), actor.sub, DateTime.toDate(expiresAt), role)
        yield* audit.append({ orgId: actor.orgId, actor: actor.audit, action: "member.invited", subject: { type: "invite", id }, to: role })
      }))
      return new OrgInvitation({ token, role, expiresAt })
    })

    const joinOrg = Spans.fn("Organizations.joinOrg")(function*(session: Session, token: string) {
      const joined = yield* orgs.transaction(Effect.gen(function*() {
        const claimed = yield* orgs.join(hashToken(token), session.sub, yield* now)
        if (Option.isSome(claimed)) {
          const { org, memberId, role } = claimed.value
          yield* audit.append({
            orgId: org.id,
            actor: { type: "member", id: session.sub },
            action: "member.joined",
            subject: { type: "member", id: memberId },
            to: role
          })
        }
        return claimed
      })).pipe(Effect.catchTag("AlreadyMember", alreadyMember))
      if (Option.isNone(joined)) return yield* inviteGone
      return joined.value.org
    })

    const members = Spans.fn("Organizations.members")(function*(actor: Actor, params: typeof ListMembersParams.Type) {
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      const limit = params.limit ?? 50
      const rows = yield* orgs.members(actor.orgId, { limit, after })
      const keyed = rows.map((member) => ({ createdAt: member.joinedAt, id: member.id, member }))
      return new MemberPage(toPage(keyed, limit, (row) => row.member))
    })

    const lastOwner = new Conflict({ error: "the organization's last owner can neither leave, be removed nor be demoted" })

    /** Changes a member's role (`role`) or removes them (`undefined`), within the policy and never leaving no owner. */
    const changeMember = (actor: Actor, id: MemberId, role: MemberRole | undefined) =>
      orgs.transaction(Effect.gen(function*() {
        const owners = yield* orgs.lockOwners(actor.orgId)
        const found = yield* orgs.member(actor.orgId, id)
        if (Option.isNone(found)) return yield* notFound("member")
        const member = found.value
        yield* orgPolicy.mayChange(actor, member.role, role)
        if (member.role === "owner" && role !== "owner" && owners <= 1) return yield* lastOwner
        const subject = { type: "member", id }
        if (role === undefined) {
          yield* orgs.removeMember(actor.orgId, id)
          yield* audit.append({ orgId: actor.orgId, actor: actor.audit, action: "member.removed", subject, from: member.role })
          return member
        }
        if (role !== member.role) {
          yield* orgs.setRole(actor.orgId, id, role)
          yield* audit.append({ orgId: actor.orgId, actor: actor.audit, action: "member.role_changed", subject, from: member.role, to: role })
        }
        return new Member({ ...member, role })
      }))

    const updateMember = Spans.fn("Organizations.updateMember")(function*(actor: Actor, id: MemberId, role: MemberRole) {
      const member = yield* changeMember(actor, id, role)
      return member
    })

    const removeMember = Spans.fn("Organizations.removeMember")(function*(actor: Actor, id: MemberId) {
      yield* changeMember(actor, id, undefined)
    })

    /**
     * Publishes the member's sealing key (issue 31 §1); replacing it is allowed, and publishing the same key again (a
     * new device derives the same one from the wallet) writes no audit row. A key another membership published is 409
     * (issue 35 §4): keys are derived per account and organization, so only a copy can collide, and a copy would make
     * envelopes sealed to this member open for the other.
     */
    const publishSealingKey = Spans.fn("Organizations.publishSealingKey")(function*(actor: Actor, key: string) {
      const at = yield* now
      yield* orgs.transaction(Effect.gen(function*() {
        const set = yield* orgs.setSealingKey(actor.orgId, actor.sub, key, at).pipe(
          Effect.catchTag("SealingKeyTaken", () =>
            Effect.fail(new Conflict({ error: "this sealing key is already published by another member: derive your own" })))
        )
        if (Option.isNone(set)) return yield* noOrganization
        if (set.value.previous === key) return
        yield* audit.append({
          orgId: actor.orgId,
          actor: actor.audit,
          action: "member.sealing_key_published",
          subject: { type: "member", id: set.value.id }
        })
      }))
      const member = yield* orgs.transaction(orgs.member(actor.orgId, actor.memberId as MemberId))
      return yield* Option.match(member, { onNone: () => noOrganization, onSome: Effect.succeed })
    })

    const settings = Spans.fn("Organizations.settings")(function*(orgId: OrgId) {
      const approvalsRequired = yield* orgs.approvalsRequired(orgId)
      return new OrgSettings({ approvalsRequired: approvalsRequired as 0 | 1 | 2 })
    })

    const updateSettings = Spans.fn("Organizations.updateSettings")(function*(actor: Actor, update: OrgSettings) {
      const at = yield* now
      yield* orgs.transaction(Effect.gen(function*() {
        const before = yield* orgs.setApprovalsRequired(actor.orgId, update.approvalsRequired, at)
        if (before === update.approvalsRequired) return
        yield* audit.append({
          orgId: actor.orgId,
          actor: actor.audit,
          action: "settings.approvals_required_changed",
          subject: { type: "org", id: actor.orgId },
          from: String(before),
          to: String(update.approvalsRequired)
        })
      }))
      return update
    })

    return {
      me,
      createOrg,
      acceptInvite,
      actorOf,
      employerOrg,
      authorize,
      authorizeAny,
      inviteMember,
      joinOrg,
      members,
      updateMember,
      removeMember,
      publishSealingKey,
      settings,
      updateSettings
    } as const
  }),
  dependencies: [OrgRepo.Default, AuditTrail.Default]
}) {}
