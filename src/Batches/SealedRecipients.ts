import { Effect } from "effect"
import { Conflict } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { can } from "../Domain/Roles.ts"
import { RecipientRefused, type SealedEnvelope, type SealedRecipient } from "../Domain/SealedAmounts.ts"
import type { Reader } from "./SealedAmountsRepo.ts"

type Readers<E> = (orgId: OrgId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Reader>, E>

/** Whether the entry still opens for a current reader: its member is here, may read amounts, and kept the key it names. */
const current = (entry: SealedRecipient, reader: Reader | undefined) =>
  reader !== undefined && can(reader.role, "amounts:read") && reader.sealingKey === entry.sealingKey

const sameEntry = (a: SealedRecipient, b: SealedRecipient) =>
  a.memberId === b.memberId && a.sealingKey === b.sealingKey && a.enc === b.enc && a.wrappedKey === b.wrappedKey

/**
 * A share only adds recipients (issue 35 §4): every entry of `previous` whose member is still a reader with the key it
 * names comes back byte for byte, in its order; only the others (their member left, lost `amounts:read` or published
 * another key) may be dropped or replaced. Else 409 naming the member whose entry would change.
 */
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

/** Why each recipient cannot be given the envelope: not a member, a role that may not read amounts, another key. */
const refusals = (next: SealedEnvelope, found: ReadonlyMap<string, Reader>) =>
  next.recipients.flatMap((entry) => {
    const reader = found.get(entry.memberId)
    if (reader === undefined) return [`${entry.memberId} is not a member of the organization`]
    if (!can(reader.role, "amounts:read")) return [`${entry.memberId} is a ${reader.role}, whose role may not read amounts`]
    if (reader.sealingKey === null) return [`${entry.memberId} has published no sealing key`]
    if (reader.sealingKey !== entry.sealingKey) return [`${entry.memberId}'s entry names another key than the one they published`]
    return []
  })

/**
 * Checks a sealed envelope's recipients (a batch's amounts, a payout's receipt) inside the caller's transaction, the
 * members' rows read with a share lock: each is a current member whose role may read amounts and whose entry names the
 * sealing key they published (else 422 naming each one that is not); and when `previous` is the same document being
 * shared, no entry a current reader holds is dropped, changed or moved (else 409).
 */
export const checkRecipients = <E>(
  readers: Readers<E>,
  orgId: OrgId,
  next: SealedEnvelope,
  previous: SealedEnvelope | undefined
) =>
  Effect.gen(function*() {
    const ids = new Set([...next.recipients, ...(previous?.recipients ?? [])].map((r) => r.memberId as string))
    const found = new Map((yield* readers(orgId, [...ids])).map((r) => [r.id as string, r]))
    if (previous !== undefined) {
      const changed = keepsEntries(previous, next, found)
      if (changed !== undefined) {
        return yield* new Conflict({
          error: `${changed}: a share may only add recipients (an entry stays byte for byte unless its member left, ` +
            "lost amounts:read or published another sealing key)"
        })
      }
    }
    const problems = refusals(next, found)
    if (problems.length > 0) return yield* new RecipientRefused({ error: `the envelope cannot be sealed to: ${problems.join("; ")}` })
  })
