import { DateTime, Option, Schema } from "effect"
import { AuditActor } from "../Domain/Actor.ts"
import { documented } from "../Domain/Documented.ts"
import { Page, PageParams } from "../Domain/Page.ts"
import { Optional } from "../Domain/Row.ts"

const AuditSubject = Schema.Struct({
  type: Schema.String.annotations({ description: "The kind of record, such as `batch`, `payout` or `member`" }),
  id: Schema.String.annotations({ description: "The record's id" })
})

const AuditRecordFields = {
  id: Schema.UUID.annotations({ description: "The entry's id (GET /audit/verify names it when the chain breaks there)" }),
  at: Schema.DateTimeUtc.annotations({ description: "When the change was made" }),
  actor: AuditActor.annotations({ description: "Who made it" }),
  action: Schema.String.annotations({ description: "What was done, such as `batch.approved` or `member.role_changed`" }),
  subject: AuditSubject.annotations({ description: "What it was done to" }),
  from: Optional(Schema.String).annotations({ description: "The subject's state before, for a change of state" }),
  to: Optional(Schema.String).annotations({ description: "The subject's state after, for a change of state" }),
  requestId: Optional(Schema.String).annotations({
    description: "The `X-Request-Id` of the request that made the change; absent for the service's own work"
  })
}

const exampleRecord: Schema.Struct.Type<typeof AuditRecordFields> = {
  id: "9e2b7c41-5d3a-4f86-b1e0-7a4c2d9f6b13",
  at: DateTime.unsafeMake("2026-11-23T16:40:00.000Z"),
  actor: { type: "member", id: "GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI" },
  action: "batch.approved",
  subject: { type: "batch", id: "0d9c3a52-6f1e-4b7a-8c25-3e9f1a7d4b60" },
  from: Option.none(),
  to: Option.none(),
  requestId: Option.some("4c1f9a2e7b3d")
}

export class AuditRecord extends Schema.Class<AuditRecord>("AuditRecord")(
  AuditRecordFields,
  documented(AuditRecordFields, {
    description: "One entry of the audit trail: a control action or a change of state, who made it and when",
    examples: [exampleRecord, {
      ...exampleRecord,
      id: "2a6d0f58-c4e1-4b97-8e3a-5f1b9c7d2e40",
      at: DateTime.unsafeMake("2026-11-24T09:30:08.000Z"),
      actor: { type: "system", id: "ledger" },
      action: "payout.settled",
      subject: { type: "payout", id: "5b0e7a43-3f2c-4d8e-9a61-2c7d9e4f1b38" },
      from: Option.some("submitted"),
      to: Option.some("settled"),
      requestId: Option.none()
    }]
  })
) {}

const AuditPageFields = Page(AuditRecord).fields

export class AuditPage extends Schema.Class<AuditPage>("AuditPage")(AuditPageFields, documented(AuditPageFields, {
  description: "One page of the organization's audit trail, newest first",
  examples: [{ items: [new AuditRecord(exampleRecord)], nextCursor: "MTI4NDE" }]
})) {}

/** `position:hash`, as a client keeps a checkpoint and gives it back: a position and the chain's SHA-256 there, in hex. */
export const CHECKPOINT = /^(0|[1-9][0-9]{0,14}):([0-9a-f]{64})$/

// A real signature, by a key made for this example: `Keypair.fromPublicKey(signingKey).verifyMessage(message, …)` holds.
const exampleCheckpoint = {
  position: 12841,
  hash: "5f0c2a9e41b7d3866e1f4a0c9b2d7e35a8c4f1b06d9e2a7c3b5f8d1e4a6c0b92",
  message: "Confidential payroll audit checkpoint\norganization: 7c1e4b9a-2f3d-4e8a-9b6c-1d2e3f4a5b6c\n" +
    "position: 12841\nhash: 5f0c2a9e41b7d3866e1f4a0c9b2d7e35a8c4f1b06d9e2a7c3b5f8d1e4a6c0b92",
  signature: "FHiQa5p3Wa6OKeDMTPny2wS1sVgczZijf9nPj99ORaHxD1ehGA34TAjjKpIGMXBqpWgmL5KziZttTFpYZPH0Dg==",
  signingKey: "GBIFMLTVZV3HCOLYSF7HHUIKCCSWAHXLWMCDXMZ24RGDJVAHFS7BQMWH"
}

const AuditCheckpointFields = {
  position: Schema.propertySignature(Schema.Int).annotations({
    description: "How many entries the chain held: the position of its last entry"
  }),
  hash: Schema.propertySignature(Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/))).annotations({
    description: "The chain's hash at that position (SHA-256, hex): each entry's hash covers every entry before it"
  }),
  message: Schema.propertySignature(Schema.String).annotations({
    description: "The text signed: the organization, the position and the hash, one per line"
  }),
  signature: Schema.propertySignature(Schema.String).annotations({
    description: "`message` signed as SEP-53 prescribes (SHA-256 of \"Stellar Signed Message:\\n\" and the message, " +
      "ed25519), base64: any Stellar SDK's `Keypair.verifyMessage` checks it against `signingKey`"
  }),
  signingKey: Schema.propertySignature(Schema.String).annotations({
    description: "The service's signing key, the SIGNING_KEY of its stellar.toml"
  })
}

export class AuditCheckpoint extends Schema.Class<AuditCheckpoint>("AuditCheckpoint")(
  AuditCheckpointFields,
  documented(AuditCheckpointFields, {
    description: "The verified chain's head, signed by the service. Kept outside the service (an auditor's files, a " +
      "ticket, an email), it proves later that the entries up to it are still there and unchanged: a hash chain " +
      "alone cannot show that its newest entries were removed, nor that it was recomputed whole",
    examples: [exampleCheckpoint]
  })
) {}

export const VerifyAuditParams = Schema.Struct({
  checkpoint: Schema.optional(
    Schema.String.pipe(Schema.pattern(CHECKPOINT, {
      message: () => "checkpoint must be position:hash, as an earlier verification's checkpoint gave them (hash: 64 hex digits)"
    }))
  ).annotations({
    description: "An earlier verification's checkpoint, as `position:hash`: the answer's `checkpointKept` says " +
      "whether the chain still holds that hash at that position"
  })
})
export type VerifyAuditParams = typeof VerifyAuditParams.Type

const AuditVerificationFields = {
  rows: Schema.propertySignature(Schema.Int).annotations({
    description: "How many linked entries were checked, from the first: all of them when the chain is intact, up to " +
      "and including the first broken one otherwise"
  }),
  verified: Schema.propertySignature(Schema.Boolean).annotations({
    description: "Whether every linked entry is exactly as it was linked, in its place, none missing"
  }),
  firstBrokenId: Schema.optional(Schema.UUID).annotations({
    description: "The first entry where the chain breaks (changed, moved, or following a removed entry); absent when verified"
  }),
  pending: Schema.propertySignature(Schema.Int).annotations({
    description: "Entries recorded but not linked yet: committed while the verification ran, or by a transaction " +
      "begun before it and still running after 5 s. The next verification covers them"
  }),
  checkpointKept: Schema.optional(Schema.Boolean).annotations({
    description: "Given a `checkpoint`: whether the chain still holds its hash at its position. False when entries up " +
      "to it were removed or the chain was rewritten since (then `verified` is false too)"
  }),
  checkpoint: Schema.optional(AuditCheckpoint).annotations({
    description: "The chain's head, signed: keep it to check a later verification against (present when verified)"
  })
}

export class AuditVerification extends Schema.Class<AuditVerification>("AuditVerification")(
  AuditVerificationFields,
  documented(AuditVerificationFields, {
    description: "The outcome of checking the organization's hash chain",
    examples: [
      { rows: 12841, verified: true, pending: 0, checkpoint: new AuditCheckpoint(exampleCheckpoint) },
      { rows: 977, verified: false, firstBrokenId: "9e2b7c41-5d3a-4f86-b1e0-7a4c2d9f6b13", pending: 2, checkpointKept: false }
    ]
  })
) {}

/** `from` and `to` as ISO 8601 date-times, with a time and a zone: a bare date or a local time is ambiguous. */
const IsoDateTime = Schema.compose(
  Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: () => "from and to must be ISO 8601 date-times with a zone, such as 2026-11-24T09:30:00Z"
  })),
  Schema.DateTimeUtc
).annotations({ jsonSchema: { type: "string", format: "date-time" } })

const Filter = (description: string) =>
  Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))).annotations({ description })

export const ListAuditParams = Schema.Struct({
  ...PageParams,
  subjectType: Filter("Only entries about this kind of record, such as `batch`"),
  subjectId: Filter("Only entries about the record with this id"),
  actor: Filter("Only entries by this actor: a member's account or Privy id, an API key's id, `ledger` or `worker`"),
  action: Filter("Only entries of this action, such as `batch.approved`"),
  from: Schema.optional(IsoDateTime).annotations({ description: "Only entries made at or after this time" }),
  to: Schema.optional(IsoDateTime).annotations({ description: "Only entries made before this time" })
})
export type ListAuditParams = typeof ListAuditParams.Type
