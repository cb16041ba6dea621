import type { Member } from "../../../src/Domain/Members.ts"
import { ROLE_PERMISSIONS } from "../../../src/Domain/Roles.ts"
import type { Recipient } from "../sealing/Envelope.ts"

/** Members who may read amounts and have published a sealing key: whom amounts and receipts are sealed to. */
export const sealingReaders = (members: ReadonlyArray<Member>): Array<Recipient> =>
  members.flatMap((m) => (m.sealingKey !== undefined && ROLE_PERMISSIONS[m.role].includes("amounts:read") ? [{ memberId: m.id, sealingKey: m.sealingKey }] : []))
