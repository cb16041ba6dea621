import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { Conflict, NotFound } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { ContractorRoles } from "../Orgs/ContractorRoles.ts"
import { hashToken } from "../Orgs/InviteToken.ts"
import { unavailableOrDie } from "../Sql/Errors.ts"
import { Outbox } from "../Sql/Outbox.ts"
import { ContractorInvites } from "./ContractorInvites.ts"
import { ContractorRepo } from "./ContractorRepo.ts"
import { registeredColumns, Registrations } from "./Directory.ts"
import { InviteRepo } from "./InviteRepo.ts"
import { announceReady } from "./Readiness.ts"
import * as Spans from "../Observability/Spans.ts"

const inviteGone = new NotFound({ error: "invite not found, already used or expired" })

/** The directory's side of `GET /me` and of accepting a contractor invite (Orgs/ContractorRoles.ts). */
export const ContractorRolesLive = Layer.effect(
  ContractorRoles,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const contractors = yield* ContractorRepo
    const invites = yield* InviteRepo
    const contractorInvites = yield* ContractorInvites
    const registrations = yield* Registrations
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

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

    const acceptInvite = Spans.fn("ContractorRoles.acceptInvite")(function*(
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
      const address = Option.orElse(current.address, () => session.method === "sep10" ? Option.some(session.sub) : Option.none())
      const registered = yield* registrations.lookup(Option.getOrNull(address))
      const updated = yield* Effect.gen(function*() {
        const claimed = yield* invites.claim(hash, session.sub, yield* now)
        if (Option.isNone(claimed)) return yield* inviteGone
        const row = yield* contractors.update(orgId, contractorId, {
          userSub: Option.some(session.sub),
          address,
          pvk: pvk === undefined ? current.pvk : Option.some(pvk),
          ...registeredColumns(registered),
          status: registrations.statusFor(registered, true)
        }, yield* now, "invited").pipe(
          Effect.catchTag("DuplicateContractor", () =>
            Effect.fail(new Conflict({ error: "this wallet is already another contractor of the organization" })))
        )
        if (Option.isNone(row)) return yield* new Conflict({ error: "the contractor changed meanwhile; retry" })
        yield* announceReady(outbox, [row.value], "invited")
        return row.value
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", unavailableOrDie))
      return updated
    })

    return { linkedTo: contractors.linkedTo, pendingInvite, acceptInvite }
  })
)
