import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { Forbidden } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import type { Actor } from "../Domain/Actor.ts"
import { orgAuditorId } from "./OrgAuditorId.ts"
import { ContractorRoles } from "../Orgs/ContractorRoles.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import * as Spans from "../Observability/Spans.ts"
import { tokenCallPolicy } from "./Policy.ts"
import type { TokenCallKind } from "./SponsorPolicy.ts"
import { OwnCaller, requireWallet } from "./Submitter.ts"
import { Transfers } from "./Transfers.ts"

const REGISTER_ONLY: ReadonlySet<TokenCallKind> = new Set(["register"])

/**
 * A wallet's calls on its own confidential account, sponsored: who may have which paid for (Policy.ts), then the
 * transfer's pipeline (Transfers.sponsorOwn). POST /token/calls for members and contractors, and POST
 * /contractor/register, which is a contractor's `register` alone.
 */
export class TokenCalls extends Effect.Service<TokenCalls>()("Transfers/TokenCalls", {
  effect: Effect.gen(function*() {
    const orgs = yield* Organizations
    const contractors = yield* ContractorRoles
    const transfers = yield* Transfers
    const sql = yield* SqlClient.SqlClient

    /** An organization here has the address as a contractor (added with it, or linked by accepting an invite). */
    const isContractor = (sub: string) => Effect.map(contractors.linkedTo(sub), (linked) => linked.length > 0)

    const contractor = (sub: string, offered: ReadonlySet<TokenCallKind>) =>
      new OwnCaller({ sub, as: "contractor", offered, permitted: tokenCallPolicy.contractorCalls, member: undefined })

    /**
     * POST /token/calls: a member whose role may pay acts for their organization (all four calls; a `register` under
     * the organization's escrow key's auditor id once it has one); anyone else an organization here has as a
     * contractor, for themselves (no deposit). 403 for anyone else.
     */
    const submit = Spans.fn("TokenCalls.submit")(function*(session: Session, signedXDR: string) {
      yield* requireWallet(session)
      const actor = yield* orgs.actorOf(session).pipe(Effect.asSome, Effect.catchTag("Forbidden", () => Effect.succeedNone))
      const offered = tokenCallPolicy.memberCalls
      if (Option.isSome(actor) && actor.value.permissions.includes(tokenCallPolicy.member)) {
        const auditorId = yield* orgAuditorId(actor.value.orgId).pipe(Effect.provideService(SqlClient.SqlClient, sql))
        const member = { orgId: actor.value.orgId, actor: actor.value.audit, auditorId: Option.getOrUndefined(auditorId) }
        return yield* transfers.sponsorOwn(
          new OwnCaller({ sub: session.sub, as: "member", offered, permitted: tokenCallPolicy.memberCalls, member }),
          signedXDR
        )
      }
      if (yield* isContractor(session.sub)) return yield* transfers.sponsorOwn(contractor(session.sub, offered), signedXDR)
      return yield* new Forbidden({
        error: Option.match(actor, {
          onNone: () => "the sponsor pays these calls for a member who may pay (transfers:submit) or a contractor of an organization here",
          onSome: ({ role }) =>
            `this needs the permission ${tokenCallPolicy.member}, which the role ${role} does not grant (or a contractor's own wallet)`
        })
      })
    })

    /**
     * POST /contractor/register, as it always answered: a contractor's own `register`, the one call it sponsors (a
     * call of another function is the sponsor's refusal, 422); 403 for an address no organization here has as a
     * contractor, so that a stranger cannot spend the sponsor's fees.
     */
    const register = Spans.fn("TokenCalls.register")(function*(session: Session, signedXDR: string) {
      yield* requireWallet(session)
      if (!(yield* isContractor(session.sub))) {
        return yield* new Forbidden({ error: "only a contractor of an organization on this service has its registration sponsored" })
      }
      return yield* transfers.sponsorOwn(contractor(session.sub, REGISTER_ONLY), signedXDR)
    })

    /**
     * POST /escrow/registry-calls: the auditor registry operator's `register_key` / `rotate_key` of the organization's
     * current escrow key (`key`), the signed-in wallet of a member with `org:manage` (`actor`, authorized by the
     * caller) the operator, recorded for the organization.
     */
    const registryCall = Spans.fn("TokenCalls.registryCall")(function*(
      session: Session,
      actor: Actor,
      signedXDR: string,
      registry: string,
      key: { readonly auditorId: number; readonly point: string } | undefined
    ) {
      return yield* transfers.sponsorRegistryCall({ sub: session.sub, member: { orgId: actor.orgId, actor: actor.audit } }, signedXDR, registry, key)
    })

    return { submit, register, registryCall } as const
  }),
  dependencies: [Organizations.Default, Transfers.Default]
}) {}
