// The sealed envelope (issue 31 §1, version 2 since issue 35 §4), stored opaque by the service:
//   { version: 2, suite, nonce, ciphertext, keyCommitment, recipients: [{ memberId, sealingKey, enc, wrappedKey }] }
// A random 32-byte content key seals the document with ChaCha20-Poly1305 (nonce, AAD = the context's contentAad);
// each recipient gets the content key through HPKE base mode single-shot (RFC 9180 §6.1) to their sealing key (named
// in their entry), with info = the context's label and aad = the context's wrapAad(memberId): enc (32 bytes) and
// wrappedKey (32 + 16).
// keyCommitment = sha256(utf8("confidential-payroll/key-commitment/v1") ‖ contentKey): ChaCha20-Poly1305 does not
// commit to its key, and each reader unwraps the key separately, so without it a sealer could hand two readers two
// keys under which one ciphertext opens to two documents. A reader checks it before decrypting (as the AWS Encryption
// SDK's message format version 2 checks its commitment key: docs.aws.amazon.com/encryption-sdk/latest/developer-guide/
// message-format.html).
// digest = hex sha256(keyCommitment ‖ nonce ‖ ciphertext): what approvals bind, the key included; the recipients are
// outside it, so sharing keeps it. Version 1 envelopes (no commitment) are refused: they must be sealed again.
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Either, Schema } from "effect"
import { fromBase64Url, toBase64Url } from "./Base64Url.ts"
import { SealedOpenFailed, SealingInputInvalid, type OpenProblem } from "./Errors.ts"
import { requireId } from "./Plaintext.ts"
import { sealingKeyBytes, type SealingKeyPair } from "./SealingKey.ts"
import * as S from "./Suite.ts"

const Recipient = Schema.Struct({ memberId: Schema.String, sealingKey: Schema.String, enc: Schema.String, wrappedKey: Schema.String })

export const ENVELOPE_VERSION = 2
export const KEY_COMMITMENT_LABEL = "confidential-payroll/key-commitment/v1"

export const SealedEnvelope = Schema.Struct({
  version: Schema.Literal(ENVELOPE_VERSION),
  suite: Schema.Literal(S.SUITE_NAME),
  nonce: Schema.String,
  ciphertext: Schema.String,
  keyCommitment: Schema.String,
  recipients: Schema.Array(Recipient)
})
export type SealedEnvelope = typeof SealedEnvelope.Type
export type SealedRecipient = typeof Recipient.Type

/** A member to seal for: their id and their published sealing key (base64url, 32 bytes). */
export interface Recipient {
  readonly memberId: string
  readonly sealingKey: string
}

/** A member opening an envelope with their own key pair. */
export interface Opener {
  readonly memberId: string
  readonly keyPair: SealingKeyPair
}

/** What binds an envelope to its use: HPKE's info, the document's AAD and each wrapped key's AAD. */
export interface SealingContext {
  readonly info: string
  readonly contentAad: string
  readonly wrapAad: (memberId: string) => string
}

const failed = (reason: OpenProblem, message: string) => new SealedOpenFailed({ reason, message })

interface Decoded {
  readonly nonce: Uint8Array
  readonly ciphertext: Uint8Array
  readonly keyCommitment: Uint8Array
  readonly recipients: ReadonlyArray<{ readonly memberId: string; readonly enc: Uint8Array; readonly wrapped: Uint8Array }>
}

/** The content key's commitment: sha256(label ‖ key). */
export const keyCommitment = (contentKey: Uint8Array): Uint8Array => {
  const label = S.utf8(KEY_COMMITMENT_LABEL)
  const joined = new Uint8Array(label.length + contentKey.length)
  joined.set(label)
  joined.set(contentKey, label.length)
  try {
    return sha256(joined)
  } finally {
    joined.fill(0)
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

const isVersion1 = (input: unknown) => typeof input === "object" && input !== null && "version" in input && input.version === 1

const bytesOf = (text: string, length: number | undefined, part: string): Uint8Array => {
  const bytes = fromBase64Url(text)
  if (bytes === undefined || (length === undefined ? bytes.length < S.TAG_BYTES : bytes.length !== length)) {
    throw failed("Malformed", `the envelope's ${part} is not base64url of the right length`)
  }
  return bytes
}

/** Checks the envelope's shape (version, suite, lengths, one entry per member) and decodes its bytes. */
export const decodeEnvelope = (input: unknown): Decoded => {
  if (isVersion1(input)) {
    throw failed("VersionOutdated", "sealed in envelope version 1, which commits to no content key: it must be sealed again")
  }
  const envelope = Schema.decodeUnknownEither(SealedEnvelope)(input)
  if (Either.isLeft(envelope)) throw failed("Malformed", `not a version ${ENVELOPE_VERSION} envelope of this suite`)
  const { nonce, ciphertext, recipients } = envelope.right
  if (new Set(recipients.map((r) => r.memberId)).size !== recipients.length) {
    throw failed("Malformed", "the envelope lists a member twice")
  }
  return {
    nonce: bytesOf(nonce, S.NONCE_BYTES, "nonce"),
    ciphertext: bytesOf(ciphertext, undefined, "ciphertext"),
    keyCommitment: bytesOf(envelope.right.keyCommitment, S.COMMITMENT_BYTES, "keyCommitment"),
    recipients: recipients.map((r) => ({
      memberId: r.memberId,
      enc: bytesOf(r.enc, S.ENC_BYTES, "enc"),
      wrapped: bytesOf(r.wrappedKey, S.WRAPPED_KEY_BYTES, "wrappedKey")
    }))
  }
}

/** Lowercase hex sha256(keyCommitment ‖ nonce ‖ ciphertext), as the service computes it and an approval records it. */
export const digest = (envelope: SealedEnvelope): string => {
  const { keyCommitment, nonce, ciphertext } = decodeEnvelope(envelope)
  const joined = new Uint8Array(keyCommitment.length + nonce.length + ciphertext.length)
  joined.set(keyCommitment)
  joined.set(nonce, keyCommitment.length)
  joined.set(ciphertext, keyCommitment.length + nonce.length)
  return bytesToHex(sha256(joined))
}

const wrapFor = async (
  context: SealingContext,
  contentKey: Uint8Array,
  recipients: ReadonlyArray<Recipient>
): Promise<Array<SealedRecipient>> => {
  const ids = recipients.map((r) => requireId(r.memberId, "a member id"))
  if (new Set(ids).size !== ids.length) {
    throw new SealingInputInvalid({ reason: "DuplicateRecipient", message: "a member is listed twice" })
  }
  const suite = S.hpkeSuite()
  const info = S.utf8(context.info)
  return Promise.all(
    recipients.map(async ({ memberId, sealingKey }) => {
      const keyBytes = sealingKeyBytes(sealingKey)
      try {
        const recipientPublicKey = await suite.kem.deserializePublicKey(keyBytes)
        const sealed = await suite.seal({ recipientPublicKey, info }, contentKey, S.utf8(context.wrapAad(memberId)))
        return {
          memberId,
          sealingKey,
          enc: toBase64Url(new Uint8Array(sealed.enc)),
          wrappedKey: toBase64Url(new Uint8Array(sealed.ct))
        }
      } catch {
        throw new SealingInputInvalid({ reason: "SealingKeyInvalid", message: "a sealing key is not a usable X25519 key" })
      }
    })
  )
}

/** Seals `plaintext` for the recipients. */
export const sealDocument = async (
  context: SealingContext,
  plaintext: Uint8Array,
  recipients: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => {
  if (recipients.length === 0) {
    throw new SealingInputInvalid({ reason: "NoRecipients", message: "an envelope nobody can open is useless" })
  }
  const contentKey = S.randomBytes(S.CONTENT_KEY_BYTES)
  const nonce = S.randomBytes(S.NONCE_BYTES)
  try {
    const wrapped = await wrapFor(context, contentKey, recipients)
    const ciphertext = await S.contentAead(contentKey).seal(nonce, plaintext, S.utf8(context.contentAad))
    return {
      version: ENVELOPE_VERSION,
      suite: S.SUITE_NAME,
      nonce: toBase64Url(nonce),
      ciphertext: toBase64Url(new Uint8Array(ciphertext)),
      keyCommitment: toBase64Url(keyCommitment(contentKey)),
      recipients: wrapped
    }
  } finally {
    contentKey.fill(0)
  }
}

/** The content key and the plaintext, for the opener; the caller zeroes the key. */
const openWithKey = async (
  context: SealingContext,
  envelope: unknown,
  { memberId, keyPair }: Opener
): Promise<{ readonly contentKey: Uint8Array; readonly plaintext: Uint8Array }> => {
  const decoded = decodeEnvelope(envelope)
  const entry = decoded.recipients.find((r) => r.memberId === memberId)
  if (entry === undefined) throw failed("NotARecipient", "the envelope holds no key for this member")
  let contentKey: Uint8Array
  try {
    const params = { recipientKey: keyPair.cryptoKeyPair, enc: entry.enc, info: S.utf8(context.info) }
    contentKey = new Uint8Array(await S.hpkeSuite().open(params, entry.wrapped, S.utf8(context.wrapAad(memberId))))
  } catch {
    throw failed("WrappedKeyRejected", "the member's wrapped key does not open under their key")
  }
  if (!sameBytes(keyCommitment(contentKey), decoded.keyCommitment)) {
    contentKey.fill(0)
    throw failed("KeyCommitmentMismatch", "the member's content key is not the one the envelope commits to")
  }
  try {
    const aead = S.contentAead(contentKey)
    const plaintext = new Uint8Array(await aead.open(decoded.nonce, decoded.ciphertext, S.utf8(context.contentAad)))
    return { contentKey, plaintext }
  } catch {
    contentKey.fill(0)
    throw failed("CiphertextRejected", "the sealed document does not authenticate")
  }
}

/** Opens the envelope as `opener`: the authenticated plaintext, or a typed SealedOpenFailed. */
export const openDocument = async (context: SealingContext, envelope: unknown, opener: Opener): Promise<Uint8Array> => {
  const { contentKey, plaintext } = await openWithKey(context, envelope, opener)
  contentKey.fill(0)
  return plaintext
}

/**
 * The same document for `readers` (the members who should be able to open it now, each with their published key):
 * same nonce, ciphertext and key commitment, so the same digest. An entry already wrapped to a reader's key is kept
 * byte for byte and in its place; the other readers (new, or with another key since) get one appended; entries of
 * members who are not readers any more are left out. The service refuses a share that drops or changes an entry a
 * current reader holds. The opener must be able to open the envelope.
 */
export const shareDocument = async (
  context: SealingContext,
  envelope: SealedEnvelope,
  opener: Opener,
  readers: ReadonlyArray<Recipient>
): Promise<SealedEnvelope> => {
  const { contentKey, plaintext } = await openWithKey(context, envelope, opener)
  plaintext.fill(0)
  try {
    const keyOf = new Map(readers.map((r) => [r.memberId, r.sealingKey]))
    const kept = envelope.recipients.filter((r) => keyOf.get(r.memberId) === r.sealingKey)
    const holding = new Set(kept.map((r) => r.memberId))
    const added = await wrapFor(context, contentKey, readers.filter((r) => !holding.has(r.memberId)))
    const { version, suite, nonce, ciphertext, keyCommitment: commitment } = envelope
    return { version, suite, nonce, ciphertext, keyCommitment: commitment, recipients: [...kept, ...added] }
  } finally {
    contentKey.fill(0)
  }
}

/** The readers whose entry is missing or wrapped to another key than the one they published: whom a share would add. */
export const unsharedReaders = (envelope: SealedEnvelope, readers: ReadonlyArray<Recipient>): Array<Recipient> => {
  const keyOf = new Map(envelope.recipients.map((r) => [r.memberId, r.sealingKey]))
  return readers.filter((r) => keyOf.get(r.memberId) !== r.sealingKey)
}
