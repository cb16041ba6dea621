import { Effect } from "effect"
import type { OrgId } from "../Domain/Ids.ts"
import { can } from "../Domain/Roles.ts"
import { RecipientRefused, type SealedEnvelope } from "../Domain/SealedAmounts.ts"
import type { Reader } from "./SealedAmountsRepo.ts"

/**
 * Every recipient of a sealed envelope (a batch's amounts, a payout's receipt) is a current member of the organization
 * whose role may read amounts and who has published a sealing key; else 422 naming each one that is not.
 */
export const checkRecipients = <E>(
  readers: (orgId: OrgId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Reader>, E>,
  orgId: OrgId,
  envelope: SealedEnvelope
) =>
  Effect.gen(function*() {
    const ids = envelope.recipients.map((r) => r.memberId)
    const found = new Map((yield* readers(orgId, ids)).map((r) => [r.id as string, r]))
    const problems = ids.flatMap((id) => {
      const reader = found.get(id)
      if (reader === undefined) return [`${id} is not a member of the organization`]
      if (!can(reader.role, "amounts:read")) return [`${id} is a ${reader.role}, whose role may not read amounts`]
      if (reader.sealingKey === null) return [`${id} has published no sealing key`]
      return []
    })
    if (problems.length > 0) return yield* new RecipientRefused({ error: `the envelope cannot be sealed to: ${problems.join("; ")}` })
  })
