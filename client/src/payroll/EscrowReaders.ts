import type { Member } from "../../../src/Domain/Members.ts"
import { ROLE_PERMISSIONS } from "../../../src/Domain/Roles.ts"
import type { Recipient } from "../sealing/Envelope.ts"

/** Members who may audit (`audit:disclose`) and have published a sealing key: whom the escrow secret is sealed to. */
export const escrowReaders = (members: ReadonlyArray<Member>): Array<Recipient> =>
  members.flatMap((m) => (m.sealingKey !== undefined && ROLE_PERMISSIONS[m.role].includes("audit:disclose") ? [{ memberId: m.id, sealingKey: m.sealingKey }] : []))
