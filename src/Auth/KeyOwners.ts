import { Context, type Effect } from "effect"
import type { Forbidden, ServiceUnavailable } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import type { Session } from "../Domain/Session.ts"

/**
 * Whose API keys these are: the signed-in employer's organization (403 for a session of none). Auth declares it,
 * the composition root wires it to Orgs, which Auth cannot import.
 */
export class KeyOwners extends Context.Tag("Auth/KeyOwners")<KeyOwners, {
  readonly orgOf: (session: Session) => Effect.Effect<OrgId, Forbidden | ServiceUnavailable>
}>() {}
