import { Option } from "effect"
import type { EscrowKey } from "../payroll/EscrowContract.ts"
import type { Recipient } from "../sealing/Envelope.ts"

/** A key as a script reads it: no Options, the envelope's readers by member id, and the readers it still lacks. */
export const keyView = (key: EscrowKey, readers: ReadonlyArray<Recipient>) => {
  const held = new Map(key.envelope.recipients.map((r) => [r.memberId as string, "sealingKey" in r ? r.sealingKey : undefined]))
  return {
    id: key.id,
    auditorId: key.auditorId,
    version: key.version,
    point: key.point,
    current: key.current,
    validFromLedger: Option.getOrNull(key.validFromLedger),
    validUntilLedger: Option.getOrNull(key.validUntilLedger),
    readers: [...held.keys()],
    lacking: readers.filter((r) => held.get(r.memberId) !== r.sealingKey).map((r) => r.memberId)
  }
}

export type KeyView = ReturnType<typeof keyView>

export const keyLine = (k: KeyView) =>
  `  v${k.version}  auditor id ${k.auditorId}  ${k.point.slice(0, 16)}…  ${k.current ? "current" : "replaced"}` +
  `${k.validFromLedger === null ? "" : `  from ledger ${k.validFromLedger}`}${k.validUntilLedger === null ? "" : `  until ledger ${k.validUntilLedger}`}` +
  `  sealed to ${k.readers.length}${k.lacking.length === 0 ? "" : `, ${k.lacking.length} auditor(s) lack it (payroll escrow share)`}`
