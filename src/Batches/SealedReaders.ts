import { Effect } from "effect"
import { Conflict } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { can, type Permission } from "../Domain/Roles.ts"
import { RecipientRefused, type SealedEnvelope, type SealedRecipient } from "../Domain/SealedAmounts.ts"
import type { Reader } from "./SealedAmountsRepo.ts"

type Readers<E> = (orgId: OrgId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Reader>, E>

/**
 * The rule of a sealed envelope's recipients for any document a permission guards (issue 35 §4, issue 36 §2): a
 * batch's amounts and a payout's receipt (`amounts:read`), the organization's escrow secret (`audit:disclose`).
 * src/Batches/SealedRecipients.ts is this rule for `amounts:read`.
 */
export const sealedReaders = (permission: Permission) => {
  const current = (entry: SealedRecipient, reader: Reader | undefined) =>
    reader !== undefined && can(reader.role, permission) && reader.sealingKey === entry.sealingKey

  const sameEntry = (a: SealedRecipient, b: SealedRecipient) =>
    a.memberId === b.memberId && a.sealingKey === b.sealingKey && a.enc === b.enc && a.wrappedKey === b.wrappedKey

  /** Every entry of `previous` a current reader holds comes back byte for byte, in its order; else what changed. */
  const keepsEntries = (previous: SealedEnvelope, next: SealedEnvelope, found: ReadonlyMap<string, Reader>) => {
    const kept = previous.recipients.filter((entry) => current(entry, found.get(entry.memberId)))
    const now = new Map(next.recipients.map((entry) => [entry.memberId as string, entry]))
    for (const entry of kept) {
      const given = now.get(entry.memberId)
      if (given === undefined) return `the entry of member ${entry.memberId} would be dropped`
      if (!sameEntry(entry, given)) return `the entry of member ${entry.memberId} would change`
    }
    const keptIds = new Set(kept.map((entry) => entry.memberId as string))
    const order = next.recipients.filter((entry) => keptIds.has(entry.memberId))
    const moved = kept.find((entry, i) => order[i]?.memberId !== entry.memberId)
    return moved === undefined ? undefined : `the entry of member ${moved.memberId} moved (a share keeps the entries' order)`
  }

  const refusals = (next: SealedEnvelope, found: ReadonlyMap<string, Reader>) =>
    next.recipients.flatMap((entry) => {
      const reader = found.get(entry.memberId)
      if (reader === undefined) return [`${entry.memberId} is not a member of the organization`]
      if (!can(reader.role, permission)) return [`${entry.memberId} is a ${reader.role}, whose role does not grant ${permission}`]
      if (reader.sealingKey === null) return [`${entry.memberId} has published no sealing key`]
      if (reader.sealingKey !== entry.sealingKey) return [`${entry.memberId}'s entry names another key than the one they published`]
      return []
    })

  /**
   * Inside the caller's transaction (the members' rows share-locked by `readers`): 422 naming each recipient who is
   * not a current member holding `permission` with the sealing key their entry names; and when `previous` is the
   * same document being shared, 409 when an entry a current reader holds would be dropped, changed or moved.
   */
  return <E>(readers: Readers<E>, orgId: OrgId, next: SealedEnvelope, previous: SealedEnvelope | undefined) =>
    Effect.gen(function*() {
      const ids = new Set([...next.recipients, ...(previous?.recipients ?? [])].map((r) => r.memberId as string))
      const found = new Map((yield* readers(orgId, [...ids])).map((r) => [r.id as string, r]))
      if (previous !== undefined) {
        const changed = keepsEntries(previous, next, found)
        if (changed !== undefined) {
          return yield* new Conflict({
            error: `${changed}: a share may only add recipients (an entry stays byte for byte unless its member left, ` +
              `lost ${permission} or published another sealing key)`
          })
        }
      }
      const problems = refusals(next, found)
      if (problems.length > 0) return yield* new RecipientRefused({ error: `the envelope cannot be sealed to: ${problems.join("; ")}` })
    })
}
