import { Effect, Layer } from "effect"
import type { Actor } from "../../src/Domain/Actor.ts"
import type { OrgId } from "../../src/Domain/Ids.ts"
import { ROLE_PERMISSIONS, type MemberRole } from "../../src/Domain/Roles.ts"
import { type AuditEntry, AuditTrail } from "../../src/Sql/AuditTrail.ts"

/** The audit trail in memory: what the unit suites' services append, in order. */
export const auditTrailOn = (entries: Array<AuditEntry>) =>
  Layer.succeed(
    AuditTrail,
    AuditTrail.make({
      append: (entry) => Effect.sync(() => void entries.push(entry)),
      appendAll: (more) => Effect.sync(() => void entries.push(...more))
    })
  )

/** A member of `orgId` acting with `role`, as `Organizations.authorize` would hand them to a service. */
export const actorOf = (orgId: OrgId, role: MemberRole = "owner", sub = "GMEMBER"): Actor => ({
  orgId,
  sub,
  memberId: "00000000-0000-4000-8000-000000000000",
  role,
  permissions: ROLE_PERMISSIONS[role],
  audit: { type: "member", id: sub },
  approvalsRequired: 0
})
