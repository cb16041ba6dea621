import { Effect, Option } from "effect"
import type { EscrowKey } from "./EscrowContract.ts"
import type { AuditorSecretSpan } from "../confidential/audit/AuditReport.ts"
import { type EscrowKeyRef, openEscrowSecret } from "../escrow/SealedEscrowSecret.ts"
import type { SealingMember } from "./SealingMember.ts"

/** Which escrow key an envelope seals: what its AADs bind and what the opened secret must give. */
export const escrowKeyRef = (organizationId: string, key: EscrowKey): EscrowKeyRef =>
  ({ organizationId, auditorId: key.auditorId, version: key.version, point: key.point })

/**
 * Every escrow key's secret the member can open, with the ledgers it was the registry's key for (a rotated key's
 * secret reads the events before its rotation); the keys whose envelope holds no entry of theirs, apart.
 */
export const openEscrowSecrets = (member: SealingMember, keys: ReadonlyArray<EscrowKey>) =>
  Effect.gen(function*() {
    const spans: Array<AuditorSecretSpan & { readonly keyId: string; readonly version: number }> = []
    const sealedToOthers: Array<EscrowKey> = []
    for (const key of keys) {
      if (!key.envelope.recipients.some((r) => r.memberId === member.memberId)) {
        sealedToOthers.push(key)
        continue
      }
      const pair = yield* Effect.tryPromise({
        try: () => openEscrowSecret(key.envelope, escrowKeyRef(member.orgId, key), { memberId: member.memberId, keyPair: member.keyPair }),
        catch: (e) => e
      })
      spans.push({
        keyId: key.id, version: key.version, secret: pair.secret,
        ...Option.match(key.validFromLedger, { onNone: () => ({}), onSome: (fromLedger) => ({ fromLedger }) }),
        ...Option.match(key.validUntilLedger, { onNone: () => ({}), onSome: (untilLedger) => ({ untilLedger }) })
      })
    }
    return { spans, sealedToOthers }
  })
