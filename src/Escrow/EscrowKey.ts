import { DateTime, Option, Schema } from "effect"
import { Optional } from "../Domain/Row.ts"
import { EXAMPLE_DIGEST, exampleEnvelope, SealedEnvelope, Sha256Hex, StoredEnvelope } from "../Domain/SealedAmounts.ts"
import { documented } from "../Domain/Documented.ts"
import { SignedXdr } from "../Domain/Transfer.ts"
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

// Each field's description sits on its schema, not on the property signature: the class's JSON schema (its encoded
// side, where the answer is written) keeps only the former.
const EscrowKeyFields = {
  id: Schema.propertySignature(EscrowKeyId.annotations({ description: "The key's id" })),
  auditorId: Schema.propertySignature(AuditorId),
  point: Schema.propertySignature(EscrowPointHex),
  version: Schema.propertySignature(version),
  envelope: Schema.propertySignature(StoredEnvelope.annotations({ description: "The sealed secret, as stored" })),
  digest: Schema.propertySignature(Sha256Hex.annotations({
    description: "SHA-256 of the envelope's key commitment, nonce and ciphertext: the same after a share"
  })),
  current: Schema.propertySignature(Schema.Boolean.annotations({
    description: "Whether it is the key the registry should hold now (no later key replaces it)"
  })),
  replaces: Optional(EscrowKeyId).annotations({ description: "The key this one replaced (a rotation)" }),
  validFromLedger: Optional(Schema.Int).annotations({
    description: "The ledger `rotate_key` made it the registry's key at (absent for the organization's first key)"
  }),
  validUntilLedger: Optional(Schema.Int).annotations({
    description: "The ledger the next key took over at: events before it were encrypted to this key"
  }),
  createdAt: Schema.propertySignature(Schema.DateTimeUtc.annotations({ description: "When it was stored" })),
  createdBy: Schema.propertySignature(Schema.String.annotations({ description: "Who stored it (their account or Privy id)" })),
  updatedAt: Schema.propertySignature(Schema.DateTimeUtc.annotations({ description: "When its envelope was last stored" })),
  updatedBy: Schema.propertySignature(Schema.String.annotations({ description: "Who stored its envelope last" }))
}

/** Grumpkin's generator (1, √−17): a point the registry accepts, for the examples. */
const EXAMPLE_POINT = "0000000000000000000000000000000000000000000000000000000000000001" +
  "0000000000000002cf135e7506a45d632d270d45f1181294833fc48d823f272c"

const exampleKey: Schema.Struct.Type<typeof EscrowKeyFields> = {
  id: EscrowKeyId.make("6f1c2e3a-4b5d-4e6f-8a7b-9c0d1e2f3a4b"),
  auditorId: 7,
  point: EXAMPLE_POINT,
  version: 1,
  envelope: new SealedEnvelope(exampleEnvelope),
  digest: EXAMPLE_DIGEST,
  current: true,
  replaces: Option.none(),
  validFromLedger: Option.none(),
  validUntilLedger: Option.none(),
  createdAt: DateTime.unsafeMake("2026-12-01T09:00:00Z"),
  createdBy: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM",
  updatedAt: DateTime.unsafeMake("2026-12-01T09:00:00Z"),
  updatedBy: "GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM"
}

export class EscrowKey extends Schema.Class<EscrowKey>("EscrowKey")(EscrowKeyFields, documented(EscrowKeyFields, {
  description: "The organization's escrow key: an auditor key pair in OpenZeppelin's form (Grumpkin, K = k·H), its " +
    "public point and auditor id, and its secret sealed among the members who may audit",
  examples: [exampleKey]
})) {}

const EscrowKeyListFields = {
  keys: Schema.propertySignature(Schema.Array(EscrowKey)).annotations({
    description: "The organization's escrow keys, oldest first: the current one last, the ones it replaced before it"
  })
}

export class EscrowKeyList extends Schema.Class<EscrowKeyList>("EscrowKeyList")(EscrowKeyListFields, documented(EscrowKeyListFields, {
  description: "The organization's escrow keys",
  examples: [{ keys: [new EscrowKey(exampleKey)] }]
})) {}

const CreateFields = {
  auditorId: Schema.propertySignature(AuditorId),
  point: Schema.propertySignature(EscrowPointHex),
  version: Schema.propertySignature(version),
  envelope
}

export class CreateEscrowKey extends Schema.Class<CreateEscrowKey>("CreateEscrowKey")(CreateFields, documented(CreateFields, {
  description: "A new escrow key: its public point, the auditor id it is (to be) registered under, and its sealed secret",
  examples: [{ auditorId: 7, point: EXAMPLE_POINT, version: 1, envelope: new SealedEnvelope(exampleEnvelope) }]
})) {}

const RotateFields = {
  point: Schema.propertySignature(EscrowPointHex),
  version: Schema.propertySignature(version),
  envelope,
  replacedAtLedger: Schema.propertySignature(Schema.Int.pipe(Schema.between(1, 0xffffffff))).annotations({
    description: "The ledger `rotate_key(auditor_id, new_point, operator)` was applied in: events from it on are " +
      "encrypted to the new key"
  })
}

export class RotateEscrowKey extends Schema.Class<RotateEscrowKey>("RotateEscrowKey")(RotateFields, documented(RotateFields, {
  description: "The key that replaced this one in the auditor registry (`rotate_key`), and when",
  examples: [{ point: EXAMPLE_POINT, version: 2, envelope: new SealedEnvelope(exampleEnvelope), replacedAtLedger: 512_345 }]
})) {}

const RegistryCallFields = {
  signedXDR: Schema.propertySignature(SignedXdr).annotations({
    description: "The operator's signed inner transaction, base64 XDR of a v1 TransactionEnvelope (not a fee-bump): one " +
      "invokeHostFunction operation calling the token's auditor registry's `register_key(auditor_id, point, operator)` " +
      "or `rotate_key(auditor_id, new_point, operator)` with the organization's current escrow key and the signed-in " +
      "wallet as `operator` and source, with time bounds ending at most 10 minutes ahead"
  })
}

/** A `register_key(4242, point, operator)` on the example deployment's auditor registry, signed by its operator. */
const EXAMPLE_REGISTER_KEY_XDR = "AAAAAgAAAADqSmxj4pxSCr71UHsTLsX5lUd2rr6+e5JCHuppFEbSLAAAA+gAAAAAB1vNFgAAAAEAAAAAAAAAAAAAAABpVbkAAAAA" +
  "AAAAAAEAAAAAAAAAGAAAAAAAAAABwYS/G/3Q3t+rHhMKAuzicbI8reoxwpAt/1a+uBwyqXgAAAAMcmVnaXN0ZXJfa2V5AAAAAwAAAAMAABCSAAAADQAAAEAA" +
  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACzxNedQakAAAAEgAAAAAAAAAA6kpsY+KcUgq+9VB7Ey7F" +
  "+ZVHdq6+vnuSQh7qaRRG0iwAAAAAAAAAAAAAAAEURtIsAAAAQKhv2rSig4ISt9oghwJK5g/dAhfqlhl0W6p/yO+y7JgeXpJ5dmRQlKPeUMwtklYmUG5g8m6IOGxiG8EeFe6gBgU="

export class RegistryCallRequest extends Schema.Class<RegistryCallRequest>("RegistryCallRequest")(
  RegistryCallFields,
  documented(RegistryCallFields, {
    description: "The auditor registry operator's signed call registering (or rotating to) the organization's escrow key",
    examples: [{ signedXDR: EXAMPLE_REGISTER_KEY_XDR }]
  })
) {}
