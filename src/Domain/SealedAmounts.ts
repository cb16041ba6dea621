import { HttpApiSchema } from "@effect/platform"
import { DateTime, Encoding, Either, Schema } from "effect"
import { documented } from "./Documented.ts"
import { MemberId } from "./Members.ts"

/** Base64url without padding that decodes to `min`..`max` bytes, written canonically (what an encoder writes). */
const Base64Url = (name: string, min: number, max: number) =>
  Schema.String.pipe(
    Schema.filter((text) => {
      if (!/^[A-Za-z0-9_-]*$/.test(text)) return `${name} must be base64url without padding`
      const bytes = Encoding.decodeBase64Url(text)
      if (Either.isLeft(bytes) || Encoding.encodeBase64Url(bytes.right) !== text) return `${name} is not valid base64url`
      const n = bytes.right.length
      if (n < min || n > max) return min === max ? `${name} must decode to ${min} bytes, not ${n}` : `${name} must decode to ${min} to ${max} bytes, not ${n}`
      return true
    }, { jsonSchema: { pattern: "^[A-Za-z0-9_-]*$" } })
  )

/** A member's HPKE public key: X25519, 32 bytes, base64url without padding (43 characters), not all zeros. */
export const SealingKey = Base64Url("sealingKey", 32, 32).pipe(
  Schema.filter((text) =>
    Either.match(Encoding.decodeBase64Url(text), { onLeft: () => false, onRight: (bytes) => bytes.some((b) => b !== 0) }) ||
    "sealingKey must not be all zeros")
).annotations({
  description: "An X25519 public key (RFC 9180 HPKE, DHKEM(X25519, HKDF-SHA256)): 32 bytes, base64url without padding " +
    "(43 characters), not all zeros"
})

/** A lowercase hex SHA-256. */
export const Sha256Hex = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "a digest is 64 lowercase hex characters (SHA-256)" })
)

export const SEALING_SUITE = "X25519-HKDF-SHA256/HKDF-SHA256/ChaCha20Poly1305"
export const MAX_CIPHERTEXT_BYTES = 65_536
export const MAX_RECIPIENTS = 100

const EXAMPLE_KEY = "LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM"
const EXAMPLE_MEMBER = MemberId.make("3c6f1e2a-9b4d-4f7e-8a15-0d2c7b9e6f41")
/** What approvals bind, as the client's `digest` computes it (client/src/sealing/Envelope.ts). */
export const DIGEST_DESCRIPTION = "SHA-256 (lowercase hex) of the key commitment's 32 bytes, the nonce's 12 and the " +
  "ciphertext's: what approvals bind. The recipients are outside it, so sharing with more members keeps the approvals " +
  "(a version 1 envelope's: of the nonce's and the ciphertext's bytes)"
export const EXAMPLE_DIGEST = "9578e27e79ee634dddd5f85055d812bb4cbdcee26e218ed37470efb2d1c8ea0a"

const sealingKeyOfEntry = Schema.propertySignature(SealingKey).annotations({
  description: "The recipient's sealing key this entry is wrapped to: their published key when the entry was added. An " +
    "entry stays as stored until its member leaves, loses `amounts:read` or publishes another key"
})

const entryFields = {
  memberId: Schema.propertySignature(MemberId).annotations({
    description: "The member it is sealed to: a current member holding `amounts:read` with a published sealing key"
  }),
  enc: Schema.propertySignature(Base64Url("enc", 32, 32)).annotations({
    description: "HPKE's encapsulated key for this member: 32 bytes, base64url without padding"
  }),
  wrappedKey: Schema.propertySignature(Base64Url("wrappedKey", 48, 48)).annotations({
    description: "The envelope's content key sealed to this member (32 bytes and a 16-byte tag): 48 bytes, base64url"
  })
}

export class SealedRecipient extends Schema.Class<SealedRecipient>("SealedRecipient")({
  memberId: entryFields.memberId,
  sealingKey: sealingKeyOfEntry,
  enc: entryFields.enc,
  wrappedKey: entryFields.wrappedKey
}, { description: "The envelope's content key, sealed to one member's sealing key" }) {}

/** A recipient of a version 1 envelope, which named no sealing key. */
export class LegacySealedRecipient extends Schema.Class<LegacySealedRecipient>("LegacySealedRecipient")(entryFields, {
  description: "A version 1 envelope's recipient (no sealing key named)"
}) {}

const uniqueMembers = (recipients: ReadonlyArray<{ readonly memberId: string }>) => {
  const seen = new Set<string>()
  for (const r of recipients) {
    if (seen.has(r.memberId)) return `recipients name member ${r.memberId} twice`
    seen.add(r.memberId)
  }
  return true
}

const recipientsOf = <A extends { readonly memberId: string }, I>(recipient: Schema.Schema<A, I>) =>
  Schema.Array(recipient).pipe(
    Schema.minItems(1, { message: () => "recipients must not be empty" }),
    Schema.maxItems(MAX_RECIPIENTS, { message: () => `at most ${MAX_RECIPIENTS} recipients` }),
    Schema.filter(uniqueMembers)
  )

const contentFields = {
  suite: Schema.propertySignature(Schema.Literal(SEALING_SUITE)).annotations({
    description: "The HPKE suite (KEM/KDF/AEAD) the content key is sealed with"
  }),
  nonce: Schema.propertySignature(Base64Url("nonce", 12, 12)).annotations({
    description: "The content's ChaCha20-Poly1305 nonce: 12 bytes, base64url without padding"
  }),
  ciphertext: Schema.propertySignature(Base64Url("ciphertext", 16, MAX_CIPHERTEXT_BYTES)).annotations({
    description: "The sealed document, a batch's amounts or a payout's receipt (with its 16-byte tag): 16 to 65,536 " +
      "bytes, base64url without padding"
  })
}

export const ENVELOPE_VERSION = 2

const SealedEnvelopeFields = {
  version: Schema.propertySignature(
    Schema.Literal(ENVELOPE_VERSION).annotations({
      message: () => "the envelope's version must be 2 (version 1 commits to no content key and is no longer accepted: seal again)"
    })
  ).annotations({ description: "The envelope format's version: 2" }),
  ...contentFields,
  keyCommitment: Schema.propertySignature(Base64Url("keyCommitment", 32, 32)).annotations({
    description: "SHA-256 of the label `confidential-payroll/key-commitment/v1` followed by the content key: 32 bytes, " +
      "base64url. A reader checks it before decrypting, so every reader opens the ciphertext under the one key the " +
      "digest names"
  }),
  recipients: Schema.propertySignature(recipientsOf(SealedRecipient)).annotations({
    description: "1 to 100 members, each once, who can open it"
  })
}

export const exampleEnvelope: Schema.Struct.Type<typeof SealedEnvelopeFields> = {
  version: ENVELOPE_VERSION,
  suite: SEALING_SUITE,
  nonce: "AAECAwQFBgcICQoL",
  ciphertext: "MFUx3MUOvKMc8dWzHp_HbtUfZrO23VoDDGU5rmUy-Xk",
  keyCommitment: "q2Yk6Zb1Xh0vF3n8c5sWm0r7Tq9jLd4eA1uJpGx2Kz8",
  recipients: [new SealedRecipient({
    memberId: EXAMPLE_MEMBER,
    sealingKey: EXAMPLE_KEY,
    enc: "Rt4nE8yq3mW1bV0kJ7aX5cZ2hP9sLdU6gF4oQiMwYvA",
    wrappedKey: "zPOqyGTodn4j5U4RS2hpHh6m0_xz2uYTbv03C0fGZdwHBwcHBwcHBwcHBwcHBwcH"
  })]
}

/**
 * A batch's amounts (or a payout's receipt) sealed among the members who may read them (issue 31 §1, issue 35 §4). The
 * service checks the shape and sizes only, never the content: it holds no key that opens it.
 */
export class SealedEnvelope extends Schema.Class<SealedEnvelope>("SealedEnvelope")(SealedEnvelopeFields, documented(SealedEnvelopeFields, {
  description: "A batch's amounts (or a payout's receipt), encrypted once (ChaCha20-Poly1305) under a content key sealed " +
    "to each reader with HPKE (RFC 9180) and committed to by `keyCommitment`. Opaque to the service",
  examples: [exampleEnvelope]
})) {}

const LegacyEnvelopeFields = {
  version: Schema.propertySignature(Schema.Literal(1)).annotations({ description: "1" }),
  ...contentFields,
  recipients: Schema.propertySignature(recipientsOf(LegacySealedRecipient)).annotations({ description: "Who could open it" })
}

/**
 * An envelope stored before key commitments (issue 35 §4): answered as stored, never accepted again; the client
 * refuses to open it (its readers could have been handed different content keys), so it is sealed again.
 */
export class LegacySealedEnvelope extends Schema.Class<LegacySealedEnvelope>("LegacySealedEnvelope")(LegacyEnvelopeFields, {
  description: "A version 1 envelope, stored before key commitments: no longer accepted, and not opened by the client " +
    "(seal the document again)"
}) {}

/** What a GET answers: the envelope as stored, of either version. */
export const StoredEnvelope = Schema.Union(SealedEnvelope, LegacySealedEnvelope)
export type StoredEnvelope = typeof StoredEnvelope.Type

const SealedAmountsFields = {
  envelope: Schema.propertySignature(StoredEnvelope).annotations({ description: "The envelope, as it was stored" }),
  digest: Schema.propertySignature(Sha256Hex).annotations({ description: DIGEST_DESCRIPTION }),
  updatedAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it was last stored" }),
  updatedBy: Schema.propertySignature(Schema.String).annotations({ description: "Who stored it last (their account or Privy id)" })
}

export class SealedAmounts extends Schema.Class<SealedAmounts>("SealedAmounts")(SealedAmountsFields, documented(SealedAmountsFields, {
  description: "A batch's sealed amounts and their digest",
  examples: [{
    envelope: new SealedEnvelope(exampleEnvelope),
    digest: EXAMPLE_DIGEST,
    updatedAt: DateTime.unsafeMake("2026-11-20T14:10:00Z"),
    updatedBy: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM"
  }]
})) {}

const PublishSealingKeyFields = {
  sealingKey: Schema.propertySignature(SealingKey).annotations({
    description: "Your HPKE public key (X25519, 32 bytes, base64url without padding), derived in your browser from your wallet"
  })
}

export class PublishSealingKey extends Schema.Class<PublishSealingKey>("PublishSealingKey")(
  PublishSealingKeyFields,
  documented(PublishSealingKeyFields, { description: "The signed-in member's sealing key", examples: [{ sealingKey: EXAMPLE_KEY }] })
) {}

const ApproveBatchFields = {
  sealedAmountsDigest: Schema.optionalWith(Sha256Hex, { exact: true }).annotations({
    description: "The digest of the sealed amounts you looked at (GET /batches/{id}/sealed-amounts): required when the " +
      "batch has sealed amounts, and it must be the current one"
  })
}

/** An approval's body; a request without one approves a batch that has no sealed amounts. */
export class ApproveBatch extends Schema.Class<ApproveBatch>("ApproveBatch")(ApproveBatchFields, documented(ApproveBatchFields, {
  description: "What the approval is given for",
  examples: [{ sealedAmountsDigest: EXAMPLE_DIGEST }]
})) {}

/** An absent body (`null` to the decoder): an approval that names no digest. */
const NoBody = Schema.transform(Schema.Null, Schema.typeSchema(ApproveBatch), {
  strict: true,
  decode: () => new ApproveBatch({}),
  encode: () => null
})

/** POST /batches/{id}/approve's payload: optional, so that a batch without sealed amounts is approved as before. */
export const ApproveBatchBody = Schema.Union(ApproveBatch, NoBody).annotations({
  description: "Optional: what the approval is given for (needed when the batch has sealed amounts)",
  examples: [new ApproveBatch({ sealedAmountsDigest: EXAMPLE_DIGEST })]
})

/** An envelope names a member it cannot be sealed to. */
export class RecipientRefused extends Schema.TaggedError<RecipientRefused>()(
  "RecipientRefused",
  { error: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" }) },
  HttpApiSchema.annotations({
    status: 422,
    description: "A recipient of the envelope is not a current member of the organization holding `amounts:read` with " +
      "a published sealing key, or its entry names another key than the one they published (the message names which)"
  })
) {}
