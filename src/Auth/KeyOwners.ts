import { Context, type Effect } from "effect"
import type { Forbidden, ServiceUnavailable } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import type { MemberRole } from "../Domain/Roles.ts"
import type { Session } from "../Domain/Session.ts"

/**
 * Whose API keys these are: the signed-in member's organization and role, when the role may manage keys
 * (`org:manage`; 403 otherwise, and for a session of no organization). Auth declares it, the composition root wires
 * it to Orgs, which Auth cannot import.
 */
export class KeyOwners extends Context.Tag("Auth/KeyOwners")<KeyOwners, {
  readonly managerOf: (session: Session) => Effect.Effect<{ readonly orgId: OrgId; readonly role: MemberRole }, Forbidden | ServiceUnavailable>
}>() {}
