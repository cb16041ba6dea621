import { Schema } from "effect"
import { Optional } from "../Domain/Row.ts"
import { SealedEnvelope, Sha256Hex, StoredEnvelope } from "../Domain/SealedAmounts.ts"
import { EscrowPointHex } from "./EscrowPoint.ts"

export const EscrowKeyId = Schema.UUID.pipe(Schema.brand("EscrowKeyId"))
export type EscrowKeyId = typeof EscrowKeyId.Type

/** The auditor registry's `auditor_id: u32`. */
export const AuditorId = Schema.Int.pipe(Schema.between(0, 0xffffffff)).annotations({
  description: "The auditor registry's `auditor_id` (a u32) the key is registered under"
})

const version = Schema.Int.pipe(Schema.between(1, 1_000_000)).annotations({
  description: "The derivation's version (client/src/escrow: the message the wallet signs names it); a rotation takes the next"
})

const envelope = Schema.propertySignature(SealedEnvelope).annotations({
  description: "The escrow secret k sealed in the browser to the members holding `audit:disclose` (owner, admin, " +
    "auditor), in the envelope of a batch's sealed amounts: opaque to the service"
})

const EscrowKeyFields = {
  id: Schema.propertySignature(EscrowKeyId).annotations({ description: "The key's id" }),
  auditorId: Schema.propertySignature(AuditorId),
  point: Schema.propertySignature(EscrowPointHex),
  version: Schema.propertySignature(version),
  envelope: Schema.propertySignature(StoredEnvelope).annotations({ description: "The sealed secret, as stored" }),
  digest: Schema.propertySignature(Sha256Hex).annotations({
    description: "SHA-256 of the envelope's key commitment, nonce and ciphertext: the same after a share"
  }),
  current: Schema.propertySignature(Schema.Boolean).annotations({
    description: "Whether it is the key the registry should hold now (no later key replaces it)"
  }),
  replaces: Optional(EscrowKeyId).annotations({ description: "The key this one replaced (a rotation)" }),
  validFromLedger: Optional(Schema.Int).annotations({
    description: "The ledger `rotate_key` made it the registry's key at (absent for the organization's first key)"
  }),
  validUntilLedger: Optional(Schema.Int).annotations({
    description: "The ledger the next key took over at: events before it were encrypted to this key"
  }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When it was stored" }),
  createdBy: Schema.propertySignature(Schema.String).annotations({ description: "Who stored it (their account or Privy id)" }),
  updatedAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When its envelope was last stored" }),
  updatedBy: Schema.propertySignature(Schema.String).annotations({ description: "Who stored its envelope last" })
}

export class EscrowKey extends Schema.Class<EscrowKey>("EscrowKey")(EscrowKeyFields, {
  description: "The organization's escrow key: an auditor key pair in OpenZeppelin's form (Grumpkin, K = k·H), its " +
    "public point and auditor id, and its secret sealed among the members who may audit"
}) {}

export class EscrowKeyList extends Schema.Class<EscrowKeyList>("EscrowKeyList")({
  keys: Schema.propertySignature(Schema.Array(EscrowKey)).annotations({
    description: "The organization's escrow keys, oldest first: the current one last, the ones it replaced before it"
  })
}) {}

const CreateFields = {
  auditorId: Schema.propertySignature(AuditorId),
  point: Schema.propertySignature(EscrowPointHex),
  version: Schema.propertySignature(version),
  envelope
}

export class CreateEscrowKey extends Schema.Class<CreateEscrowKey>("CreateEscrowKey")(CreateFields, {
  description: "A new escrow key: its public point, the auditor id it is (to be) registered under, and its sealed secret"
}) {}

const RotateFields = {
  point: Schema.propertySignature(EscrowPointHex),
  version: Schema.propertySignature(version),
  envelope,
  replacedAtLedger: Schema.propertySignature(Schema.Int.pipe(Schema.between(1, 0xffffffff))).annotations({
    description: "The ledger `rotate_key(auditor_id, new_point, operator)` was applied in: events from it on are " +
      "encrypted to the new key"
  })
}

export class RotateEscrowKey extends Schema.Class<RotateEscrowKey>("RotateEscrowKey")(RotateFields, {
  description: "The key that replaced this one in the auditor registry (`rotate_key`), and when"
}) {}
