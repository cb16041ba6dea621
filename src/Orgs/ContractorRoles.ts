import { Context, type Effect, type Option } from "effect"
import type { Contractor, ContractorStatus } from "../Domain/Contractor.ts"
import type { Conflict, NotFound, ServiceUnavailable } from "../Domain/Errors.ts"
import type { ContractorId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"

/**
 * What a signed-in user is as a contractor, which `GET /me` and `POST /invites/{token}/accept` need. Orgs declares
 * it; Contractors implements it (it owns the directory and contractor invites) and App.ts wires it, so that the
 * directory depends on organizations and never the other way round.
 */
export class ContractorRoles extends Context.Tag("Orgs/ContractorRoles")<ContractorRoles, {
  /** The contractor records the user has claimed, oldest first. */
  readonly linkedTo: (
    sub: string
  ) => Effect.Effect<ReadonlyArray<{ readonly id: ContractorId; readonly name: string; readonly status: ContractorStatus }>, ServiceUnavailable>
  /** The invite the caller presents (`token`), else one discovered for the caller's wallet address or verified email. */
  readonly pendingInvite: (
    session: Session,
    token: string | undefined
  ) => Effect.Effect<Option.Option<{ readonly company: string; readonly token: string }>, ServiceUnavailable>
  /** Claims a contractor invite: `invited` → `onboarding` (or `ready` when the address is registered). */
  readonly acceptInvite: (
    session: Session,
    token: string,
    pvk: string | undefined
  ) => Effect.Effect<Contractor, NotFound | Conflict | ServiceUnavailable>
}>() {}
