import { Array, Clock, DateTime, Effect, Option } from "effect"
import { hashToken, INVITE_TTL_MS, newInviteToken } from "./InviteToken.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { CurrentSession, Me, OrgInvitation, type Session } from "../Domain/Session.ts"
import { ContractorRoles } from "./ContractorRoles.ts"
import { OrgRepo } from "./OrgRepo.ts"
import * as Spans from "../Observability/Spans.ts"

const inviteGone = new NotFound({ error: "invite not found, already used or expired" })

/**
 * Organizations and who belongs to them: the one place that decides who is an employer (`employerOrg`,
 * `asEmployer`: 403 for a session of no organization), onboarding, wallets joining through organization invites, and
 * who the signed-in user is to the service (`GET /me`: employer, contractor, or someone to onboard).
 */
export class Organizations extends Effect.Service<Organizations>()("Orgs/Organizations", {
  effect: Effect.gen(function*() {
    const orgs = yield* OrgRepo
    const contractors = yield* ContractorRoles
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** The caller's organization; 403 for a session that belongs to none. */
    const employerOrg = (session: Session) =>
      orgs.membership(session.sub).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new Forbidden({ error: "this route needs an employer: create an organization first" })),
          onSome: (m) => Effect.succeed(m.orgId)
        }))
      )

    /** Runs `f` with the signed-in employer's organization (403 without one). */
    const asEmployer = <A, E, R>(f: (orgId: OrgId) => Effect.Effect<A, E, R>) =>
      CurrentSession.pipe(Effect.flatMap(employerOrg), Effect.flatMap(f))

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
        employer: Option.getOrUndefined(Option.map(membership, (m) => ({ orgId: m.orgId, orgName: m.orgName }))),
        contractor: Option.getOrUndefined(Option.map(Array.head(linked), (c) => ({ id: c.id, name: c.name }))),
        invite: Option.getOrUndefined(
          Option.map(invite, (i) => ({ company: i.company, role: "contractor" as const, token: i.token }))
        )
      })
    })

    const createOrg = Spans.fn("Organizations.createOrg")(function*(session: Session, name: string) {
      const org = yield* orgs.create(name, session.sub).pipe(
        Effect.catchTag("AlreadyMember", () => Effect.fail(new Conflict({ error: "you already belong to an organization" })))
      )
      return org
    })

    const acceptInvite = Spans.fn("Organizations.acceptInvite")(function*(session: Session, token: string, pvk: string | undefined) {
      return yield* contractors.acceptInvite(session, token, pvk)
    })

    const inviteEmployer = Spans.fn("Organizations.inviteEmployer")(function*(session: Session) {
      const orgId = yield* employerOrg(session)
      const token = newInviteToken()
      const expiresAt = DateTime.add(yield* DateTime.now, { millis: INVITE_TTL_MS })
      yield* orgs.invite(orgId, hashToken(token), session.sub, DateTime.toDate(expiresAt))
      return new OrgInvitation({ token, expiresAt })
    })

    const joinOrg = Spans.fn("Organizations.joinOrg")(function*(session: Session, token: string) {
      const joined = yield* orgs.join(hashToken(token), session.sub, yield* now).pipe(
        Effect.catchTag("AlreadyMember", () => Effect.fail(new Conflict({ error: "you already belong to an organization" })))
      )
      if (Option.isNone(joined)) return yield* inviteGone
      return joined.value
    })

    return { me, createOrg, acceptInvite, employerOrg, asEmployer, inviteEmployer, joinOrg } as const
  }),
  dependencies: [OrgRepo.Default]
}) {}
