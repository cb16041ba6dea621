import { Schema } from "effect"
import type { OrgId } from "./Ids.ts"
import type { MemberRole, Permission } from "./Roles.ts"

/** Who did something, as the audit trail records it. */
export const AuditActor = Schema.Struct({
  type: Schema.Literal("member", "apiKey", "system").annotations({
    description: "`member` (a signed-in member), `apiKey` (an API key of the organization), `system` (the service itself: " +
      "the ledger's outcome, a worker)"
  }),
  id: Schema.String.annotations({
    description: "The member's account (G...) or Privy id, the API key's id, or the part of the service (`ledger`, " +
      "`worker`)"
  })
})
export type AuditActor = typeof AuditActor.Type

/** Changes the chain or a worker makes. */
export const SYSTEM_LEDGER: AuditActor = { type: "system", id: "ledger" }

/**
 * A member of an organization acting, as the policies see them: their role, and what they may do now (a key's
 * narrowed role taken into account).
 */
export interface Actor {
  readonly orgId: OrgId
  readonly sub: string
  readonly memberId: string
  readonly role: MemberRole
  readonly permissions: ReadonlyArray<Permission>
  readonly audit: AuditActor
  /** The organization's approval rule, read with the membership (a transfer naming no payout is refused above 0). */
  readonly approvalsRequired: number
}
