import { SqlClient } from "@effect/sql"
import { Array, Clock, DateTime, Effect, Option } from "effect"
import { ContractorRepo } from "../Contractors/ContractorRepo.ts"
import { hashToken, INVITE_TTL_MS, newInviteToken } from "./InviteToken.ts"
import { registeredColumns, Registrations } from "../Contractors/Directory.ts"
import { ContractorInvites } from "../Contractors/ContractorInvites.ts"
import { InviteRepo } from "../Contractors/InviteRepo.ts"
import { Contractor } from "../Domain/Contractor.ts"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { CurrentSession, Me, OrgInvitation, type Session } from "../Domain/Session.ts"
import { OrgRepo } from "./OrgRepo.ts"
import { unavailableOrDie } from "../Sql/Errors.ts"

const inviteGone = new NotFound({ error: "invite not found, already used or expired" })

/** Who the signed-in user is to the service: employer, contractor, or someone to onboard. */
export class Account extends Effect.Service<Account>()("Auth/Account", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const orgs = yield* OrgRepo
    const contractors = yield* ContractorRepo
    const invites = yield* InviteRepo
    const contractorInvites = yield* ContractorInvites
    const registrations = yield* Registrations
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

    /** The invite the caller presents, else one discovered for the caller's wallet address or verified email. */
    const pendingInvite = (session: Session, inviteToken: string | undefined) =>
      Effect.gen(function*() {
        if (inviteToken !== undefined) {
          const open = yield* invites.findOpen(hashToken(inviteToken), yield* now)
          return Option.map(open, (i) => ({ company: i.orgName, token: inviteToken }))
        }
        return yield* contractorInvites.discover({
          address: session.method === "sep10" ? Option.some(session.sub) : Option.none(),
          email: Option.fromNullable(session.email)
        }, yield* now)
      })

    const me = Effect.fn("Account.me")(function*(session: Session, inviteToken: string | undefined) {
      const membership = yield* orgs.membership(session.sub)
      const linked = yield* contractors.linkedTo(session.sub)
      const invite = yield* pendingInvite(session, inviteToken)
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

    const createOrg = Effect.fn("Account.createOrg")(function*(session: Session, name: string) {
      const org = yield* orgs.create(name, session.sub).pipe(
        Effect.catchTag("AlreadyMember", () => Effect.fail(new Conflict({ error: "you already belong to an organization" })))
      )
      return org
    })

    const acceptInvite = Effect.fn("Account.acceptInvite")(function*(
      session: Session,
      token: string,
      pvk: string | undefined
    ) {
      const hash = hashToken(token)
      const open = yield* invites.findOpen(hash, yield* now)
      if (Option.isNone(open)) return yield* inviteGone
      const { orgId, contractorId } = open.value
      const contractor = yield* contractors.findById(orgId, contractorId)
      if (Option.isNone(contractor)) return yield* inviteGone
      const current = contractor.value
      if (current.status !== "invited") {
        return yield* new Conflict({ error: `this contractor is ${current.status} and cannot accept an invite` })
      }
      const address = Option.getOrElse(current.address, () => session.method === "sep10" ? session.sub : null)
      const registered = yield* registrations.lookup(address)
      const updated = yield* Effect.gen(function*() {
        const claimed = yield* invites.claim(hash, session.sub, yield* now)
        if (Option.isNone(claimed)) return yield* inviteGone
        const row = yield* contractors.update(orgId, contractorId, {
          userSub: session.sub,
          address,
          pvk: pvk ?? Option.getOrNull(current.pvk),
          ...registeredColumns(registered),
          status: registrations.statusFor(registered, true)
        }, yield* now, "invited").pipe(
          Effect.catchTag("DuplicateContractor", () =>
            Effect.fail(new Conflict({ error: "this wallet is already another contractor of the organization" })))
        )
        if (Option.isNone(row)) return yield* new Conflict({ error: "the contractor changed meanwhile; retry" })
        return row.value
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", unavailableOrDie))
      return Contractor.fromRecord(updated)
    })

    const inviteEmployer = Effect.fn("Account.inviteEmployer")(function*(session: Session) {
      const orgId = yield* employerOrg(session)
      const token = newInviteToken()
      const expiresAt = DateTime.add(yield* DateTime.now, { millis: INVITE_TTL_MS })
      yield* orgs.invite(orgId, hashToken(token), session.sub, DateTime.toDate(expiresAt))
      return new OrgInvitation({ token, expiresAt })
    })

    const joinOrg = Effect.fn("Account.joinOrg")(function*(session: Session, token: string) {
      const joined = yield* orgs.join(hashToken(token), session.sub, yield* now).pipe(
        Effect.catchTag("AlreadyMember", () => Effect.fail(new Conflict({ error: "you already belong to an organization" })))
      )
      if (Option.isNone(joined)) return yield* inviteGone
      return joined.value
    })

    return { me, createOrg, acceptInvite, employerOrg, asEmployer, inviteEmployer, joinOrg } as const
  }),
  dependencies: [OrgRepo.Default, ContractorRepo.Default, InviteRepo.Default, ContractorInvites.Default, Registrations.Default]
}) {}
