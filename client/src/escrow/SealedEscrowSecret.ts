// The escrow secret sealed among the members who may audit (issue 36 §2), in the envelope of a batch's amounts
// (client/src/sealing/Envelope.ts). The document is
//   { organizationId, auditorId, version, point: "<128 hex>", secret: "0x…" (k) }
// sealed with AAD = utf8(organizationId ‖ "\n" ‖ auditorId ‖ "\n" ‖ version); each wrapped key has HPKE info
// "confidential-payroll/escrow-secret/v1" and aad = that ‖ "\n" ‖ memberId. Its own info label keeps it from ever
// opening as amounts or a receipt. Opening checks k·H against the point on file.
import { Schema } from "effect"
import { openDocument, type Opener, type Recipient, sealDocument, type SealedEnvelope, type SealingContext, shareDocument } from "../sealing/Envelope.ts"
import { SealedOpenFailed } from "../sealing/Errors.ts"
import { decodeDocument, Hex256, Identifier, requireId, secretToHex } from "../sealing/Plaintext.ts"
import { utf8 } from "../sealing/Suite.ts"
import { EscrowKeyPair } from "./EscrowKey.ts"

export const SEALED_ESCROW_INFO = "confidential-payroll/escrow-secret/v1"

/** Which escrow key: all three are bound into every AAD. */
export interface EscrowKeyRef {
  readonly organizationId: string
  readonly auditorId: number
  readonly version: number
  /** The public point on file (hex): what the opened secret must give. */
  readonly point: string
}

const EscrowDocument = Schema.Struct({
  organizationId: Identifier,
  auditorId: Schema.Int,
  version: Schema.Int,
  point: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{128}$/)),
  secret: Hex256
})

const escrowContext = (ref: EscrowKeyRef): SealingContext => {
  const key = `${requireId(ref.organizationId, "the organization id")}\n${ref.auditorId}\n${ref.version}`
  return { info: SEALED_ESCROW_INFO, contentAad: key, wrapAad: (memberId) => `${key}\n${memberId}` }
}

/** Seals the pair's secret for `recipients` (the members holding `audit:disclose`, with their published keys). */
export const sealEscrowSecret = async (
  pair: EscrowKeyPair,
  ref: Omit<EscrowKeyRef, "point" | "version">,
  recipients: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => {
  const full = { ...ref, version: pair.version, point: pair.pointHex }
  const document = { ...full, secret: secretToHex(pair.secret, "the escrow secret") }
  return await sealDocument(escrowContext(full), utf8(JSON.stringify(document)), recipients)
}

/** Opens the escrow key as `opener`: the pair, checked against the point on file; a SealedOpenFailed otherwise. */
export const openEscrowSecret = async (envelope: unknown, ref: EscrowKeyRef, opener: Opener): Promise<EscrowKeyPair> => {
  const plaintext = await openDocument(escrowContext(ref), envelope, opener)
  const document = decodeDocument(EscrowDocument, plaintext)
  plaintext.fill(0)
  const malformed = (message: string) => new SealedOpenFailed({ reason: "Malformed", message })
  if (document === undefined || document.organizationId !== ref.organizationId || document.auditorId !== ref.auditorId ||
    document.version !== ref.version || document.point !== ref.point) {
    throw malformed("the sealed document is not this escrow key")
  }
  const pair = new EscrowKeyPair(BigInt(document.secret), document.version)
  if (pair.pointHex !== ref.point) throw malformed("the sealed secret does not give the escrow key's point")
  return pair
}

/** The same secret for `readers` (every member who should hold it now): the same digest, entries on file kept. */
export const shareEscrowSecretWith = async (
  envelope: SealedEnvelope,
  ref: EscrowKeyRef,
  opener: Opener,
  readers: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => await shareDocument(escrowContext(ref), envelope, opener, readers)
