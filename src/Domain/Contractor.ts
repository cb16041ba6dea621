import { Model } from "@effect/sql"
import { DateTime, Option, Schema } from "effect"
import { documented } from "./Documented.ts"
import { ContractorId, OrgId } from "./Ids.ts"
import { Page, PageParams } from "./Page.ts"
import { StellarAddress } from "./Stellar.ts"
import { Name, StorableText } from "./Text.ts"

export const ContractorStatus = Schema.Literal("invited", "onboarding", "ready", "inactive")
export type ContractorStatus = typeof ContractorStatus.Type

export const ContractorName = Name

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/
export const Email = Schema.compose(
  Schema.Trim,
  StorableText.pipe(
    Schema.maxLength(254, { message: () => "email must be at most 254 characters" }),
    Schema.pattern(EMAIL, { message: () => "must be an email address" })
  )
)

const DECIMAL = /^(0|[1-9][0-9]{0,15})(\.[0-9]{1,7})?$/
/** A positive USDC amount with at most 7 decimal places (a stroop), as a string. */
export const Amount = Schema.String.pipe(
  Schema.filter((s) => DECIMAL.test(s) && /[1-9]/.test(s), {
    message: () => "must be a positive decimal with at most 7 decimal places"
  })
)

export const Rate = Schema.Struct({
  amount: Schema.propertySignature(Amount).annotations({
    description: "The amount per period, a positive decimal with at most 7 decimal places"
  }),
  currency: Schema.propertySignature(Schema.Literal("USDC").annotations({ message: () => "currency must be USDC" })).annotations({
    description: "Always USDC"
  })
}).annotations({ description: "The contractor's agreed rate: public directory data, never a payout amount" })
export type Rate = typeof Rate.Type

/** Public viewing key: hex of the registered public key. */
export const PublicViewingKey = Schema.String.pipe(
  Schema.pattern(/^([0-9a-f]{2}){16,128}$/, { message: () => "pvk must be lowercase hex of 16 to 128 bytes" })
)

/** Text as stored; the request bodies (`CreateContractor`, `UpdateContractor`) say what is accepted. */
const Stored = Schema.String

/** A description on a field's schema: in a struct of optional fields only these reach the OpenAPI document. */
const about = <S extends Schema.Schema.Any>(schema: S, description: string) => schema.annotations({ description }) as S

const DateTimeField = (description: string) =>
  Model.Field({ select: Schema.DateTimeUtcFromDate, json: about(Schema.DateTimeUtc, description) })

/**
 * The contractor, defined once: its `contractors` row (`Contractor` itself, the select variant, with the
 * organization and the linked user), what an insert writes (`Contractor.insert`) and what the API answers
 * (`Contractor.json`: everything but the organization and the linked user). Absence is `Option`, a NULL column, an
 * absent JSON key; times are `DateTime.Utc`. The rate is one jsonb column.
 */
export class Contractor extends Model.Class<Contractor>("Contractor")({
  id: Model.GeneratedByApp(about(ContractorId, "The contractor's id")),
  orgId: Model.FieldExcept("json", "jsonCreate", "jsonUpdate")(OrgId),
  name: Model.FieldExcept("jsonCreate", "jsonUpdate")(about(Stored, "The contractor's name")),
  email: Model.FieldOption(Model.FieldExcept("jsonCreate", "jsonUpdate")(about(Stored, "Their email, if the employer gave one"))),
  address: Model.FieldOption(
    Model.FieldExcept("jsonCreate", "jsonUpdate")(about(Stored, "The Stellar address (G... or C...) payouts go to, once known"))
  ),
  pvk: Model.FieldOption(
    Model.FieldExcept("jsonCreate", "jsonUpdate")(
      about(Stored, "The public viewing key the address registered with the confidential token (hex)")
    )
  ),
  auditorId: Model.FieldOption(
    Model.FieldExcept("jsonCreate", "jsonUpdate")(about(Schema.Int, "The auditor the registration committed to"))
  ),
  status: Model.FieldExcept("jsonCreate", "jsonUpdate")(about(
    ContractorStatus,
    "`invited` until they accept an invite, `onboarding` until their address is registered with the confidential " +
      "token, then `ready` (only ready contractors can be paid); `inactive` when the employer deactivated them"
  )),
  rate: Model.FieldOption(Model.Field({ select: Rate, insert: Schema.parseJson(Rate), update: Schema.parseJson(Rate), json: Rate })),
  userSub: Model.FieldOption(Model.FieldOnly("select", "insert", "update")(Stored)),
  createdAt: DateTimeField("When the contractor was added"),
  lastPaidAt: Model.FieldOption(DateTimeField("When a payout to them last settled"))
}) {}

/**
 * A `contractors` row (as the database answers it) into the contractor, without Schema's decoder: the lists read up
 * to 101 rows a request, and decoding each through the Model cost about 10 µs. Every column is one the service wrote
 * through `Contractor.insert`/`update` (validated then) or one the database constrains (status, times), so nothing is
 * checked again here. test/unit/row-codecs.test.ts holds it to `Schema.decode(Contractor)` on generated rows.
 */
export const contractorFromRow = (row: typeof Contractor.Encoded): Contractor =>
  new Contractor({
    id: row.id as ContractorId,
    orgId: row.orgId as OrgId,
    name: row.name,
    email: Option.fromNullable(row.email),
    address: Option.fromNullable(row.address),
    pvk: Option.fromNullable(row.pvk),
    auditorId: Option.fromNullable(row.auditorId),
    status: row.status,
    rate: row.rate === null ? Option.none() : Option.some({ amount: row.rate.amount, currency: row.rate.currency }),
    userSub: Option.fromNullable(row.userSub),
    createdAt: DateTime.unsafeFromDate(row.createdAt),
    lastPaidAt: row.lastPaidAt === null ? Option.none() : Option.some(DateTime.unsafeFromDate(row.lastPaidAt))
  }, { disableValidation: true })

/**
 * The contractor as the API shows it (`Contractor.json`'s encoding: absent keys for `None`, ISO times), written by
 * hand for the lists, where Schema's encoder cost about 8 µs a contractor. test/unit/row-codecs.test.ts holds
 * it to `Schema.encode(Contractor.json)` on generated contractors, and the conformance suite validates the answers
 * against the OpenAPI document.
 */
export const contractorToJson = (c: Contractor): typeof Contractor.json.Encoded => ({
  id: c.id,
  name: c.name,
  ...(Option.isSome(c.email) ? { email: c.email.value } : undefined),
  ...(Option.isSome(c.address) ? { address: c.address.value } : undefined),
  ...(Option.isSome(c.pvk) ? { pvk: c.pvk.value } : undefined),
  ...(Option.isSome(c.auditorId) ? { auditorId: c.auditorId.value } : undefined),
  status: c.status,
  ...(Option.isSome(c.rate) ? { rate: { amount: c.rate.value.amount, currency: c.rate.value.currency } } : undefined),
  createdAt: DateTime.formatIso(c.createdAt),
  ...(Option.isSome(c.lastPaidAt) ? { lastPaidAt: DateTime.formatIso(c.lastPaidAt.value) } : undefined)
})

/** What an insert writes. */
export type NewContractor = typeof Contractor.insert.Type

type Updatable = Omit<typeof Contractor.update.Type, "id" | "orgId">

/** Columns to change (`Contractor.update` without its keys); an absent or undefined one stays as it is. */
export type ContractorChanges = { readonly [K in keyof Updatable]?: Updatable[K] | undefined }

const EXAMPLE_ID = ContractorId.make("8a4f2c1e-7b3d-4e9a-a6c5-1f0e3d2b9c87")
const EXAMPLE_ADDRESS = "GCEZWKCA5VLDNRLN3RPRJMRZOX3Z6G5CHCGSNFHEYVXM3XOJMDS674JZ"

/** The example of a contractor in every answer that shows one. */
const exampleContractor: typeof Contractor.json.Type = {
  id: EXAMPLE_ID,
  name: "Ada Lovelace",
  email: Option.some("ada@example.com"),
  address: Option.some(EXAMPLE_ADDRESS),
  pvk: Option.some("4f0c2d8e9a1b7c3e5d6f8a0b2c4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e"),
  auditorId: Option.some(1),
  status: "ready",
  rate: Option.some({ amount: "4500", currency: "USDC" }),
  createdAt: DateTime.unsafeMake("2026-11-02T10:15:00Z"),
  lastPaidAt: Option.some(DateTime.unsafeMake("2026-11-24T09:31:07Z"))
}

/** What the API shows of a contractor (named `Contractor` in the OpenAPI document). */
export const ContractorJson = Contractor.json.annotations({
  identifier: "Contractor",
  title: "Contractor",
  description: "A contractor of the organization's directory: public data only, never an amount paid",
  examples: [exampleContractor]
})

const CreateContractorFields = {
  name: Schema.propertySignature(ContractorName).annotations({ description: "Their name (1 to 200 characters)" }),
  email: Schema.optional(Email).annotations({
    description: "Their email: an invite is discoverable when they sign in with it (unique in the organization, any case)"
  }),
  address: Schema.optional(StellarAddress).annotations({
    description: "Their Stellar address (G... or C...), if known: already registered with the confidential token, " +
      "they start `ready`; otherwise `invited` (unique in the organization)"
  }),
  rate: Schema.optional(Rate).annotations({ description: "Their agreed rate (public directory data)" })
}

export class CreateContractor extends Schema.Class<CreateContractor>("CreateContractor")(
  CreateContractorFields,
  documented(CreateContractorFields, {
    description: "A contractor to add to the directory",
    examples: [{ name: "Ada Lovelace", email: "ada@example.com", address: StellarAddress.make(EXAMPLE_ADDRESS), rate: { amount: "4500", currency: "USDC" } }]
  })
) {}

const UpdateContractorFields = {
  name: Schema.optional(ContractorName).annotations({ description: "A new name" }),
  email: Schema.optional(Schema.NullOr(Email)).annotations({ description: "A new email, or null to remove it" }),
  address: Schema.optional(Schema.NullOr(StellarAddress)).annotations({
    description: "A new address, or null to remove it: the registration is read again for it"
  }),
  rate: Schema.optional(Schema.NullOr(Rate)).annotations({ description: "A new rate, or null to remove it" }),
  status: Schema.optional(ContractorStatus).annotations({
    description: "`inactive` deactivates from any state; a status of `inactive` may move back (to `ready` when " +
      "registered, else `invited`); any other move is 409"
  })
}

export class UpdateContractor extends Schema.Class<UpdateContractor>("UpdateContractor")(
  UpdateContractorFields,
  documented(UpdateContractorFields, {
    description: "The fields to change; an absent one stays as it is",
    examples: [{ status: "inactive" }]
  })
) {}

export const MAX_BULK_ROWS = 1000

/** Rows are checked one by one so that a bad row is reported, not fatal to the import. */
export const BulkRow = Schema.Unknown.annotations({
  identifier: "BulkRow",
  description: "One contractor of an import: { name, email?, address?, amount? }",
  jsonSchema: {
    type: "object",
    required: ["name"],
    properties: {
      name: { type: "string", description: "Their name (1 to 200 characters)" },
      email: { type: "string", description: "Their email (unique in the organization, any case)" },
      address: { type: "string", description: "Their Stellar address (G... or C...)" },
      amount: { type: ["number", "string"], description: "Their rate in USDC, at most 7 decimal places" }
    }
  }
})

const BulkImportFields = {
  rows: Schema.propertySignature(Schema.Array(BulkRow).pipe(
    Schema.maxItems(MAX_BULK_ROWS, { message: () => `at most ${MAX_BULK_ROWS} rows per import` })
  )).annotations({ description: `The rows, as the client parsed them from CSV (at most ${MAX_BULK_ROWS})` })
}

export class BulkImport extends Schema.Class<BulkImport>("BulkImport")(
  BulkImportFields,
  documented(BulkImportFields, {
    description: "Contractors to import at once; each row is checked on its own",
    examples: [{ rows: [{ name: "Ada Lovelace", email: "ada@example.com", address: EXAMPLE_ADDRESS, amount: 4500 }, { name: "Grace Hopper" }] }]
  })
) {}

const BulkRowErrorFields = {
  row: Schema.propertySignature(Schema.Int).annotations({ description: "The row's index in `rows` (from 0)" }),
  reason: Schema.propertySignature(Schema.String).annotations({ description: "Why it was not imported" })
}

export class BulkRowError extends Schema.Class<BulkRowError>("BulkRowError")(
  BulkRowErrorFields,
  documented(BulkRowErrorFields, {
    description: "A row that was not imported",
    examples: [{ row: 1, reason: "email already in the directory" }]
  })
) {}

const BulkImportResultFields = {
  imported: Schema.propertySignature(Schema.Array(ContractorJson)).annotations({ description: "The contractors added" }),
  errors: Schema.propertySignature(Schema.Array(BulkRowError)).annotations({ description: "The rows refused, by row" })
}

export class BulkImportResult extends Schema.Class<BulkImportResult>("BulkImportResult")(
  BulkImportResultFields,
  documented(BulkImportResultFields, {
    description: "What a bulk import did: the contractors added, and the rows it refused",
    examples: [{ imported: [exampleContractor], errors: [new BulkRowError({ row: 1, reason: "email already in the directory" })] }]
  })
) {}

const ContractorPageFields = Page(ContractorJson).fields

export class ContractorPage extends Schema.Class<ContractorPage>("ContractorPage")(
  ContractorPageFields,
  documented(ContractorPageFields, {
    description: "One page of the directory, newest first",
    examples: [{ items: [exampleContractor], nextCursor: "MjAyNi0xMS0wMlQxMDoxNTowMC4wMDBafDhhNGYyYzFl" }]
  })
) {}

const UUID = "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
const MAX_IDS = 100

/** `ids` as the query carries it, comma-separated, and as a client and the service hold it, an array of ids. */
const ContractorIds = Schema.compose(
  Schema.String.pipe(
    Schema.pattern(new RegExp(`^${UUID}(,${UUID}){0,${MAX_IDS - 1}}$`), {
      message: () => `ids must be contractor ids, comma-separated (at most ${MAX_IDS})`
    })
  ),
  Schema.split(",")
).pipe(Schema.compose(Schema.Array(ContractorId)))

export const ListContractorsParams = Schema.Struct({
  ...PageParams,
  ids: Schema.optional(ContractorIds).annotations({
    description: `Only these contractors, comma-separated ids (at most ${MAX_IDS}): a client naming the contractors of ` +
      "a page of payouts. Ids of no contractor of the organization are left out, not refused"
  }),
  status: Schema.optional(ContractorStatus).annotations({ description: "Only contractors in this status" }),
  q: Schema.optional(StorableText.pipe(Schema.maxLength(200))).annotations({
    description: "Only contractors whose name or email contains this text (any case)"
  })
})

const InvitationFields = {
  contractorId: Schema.propertySignature(ContractorId).annotations({ description: "The contractor invited" }),
  token: Schema.propertySignature(Schema.String).annotations({
    description: "The single-use invite token, shown this once: the contractor accepts it with POST /invites/{token}/accept"
  }),
  expiresAt: Schema.propertySignature(Schema.DateTimeUtc).annotations({ description: "When the token expires (7 days)" })
}

export class Invitation extends Schema.Class<Invitation>("Invitation")(
  InvitationFields,
  documented(InvitationFields, {
    description: "An invite for a contractor to join the directory with their wallet or email sign-in",
    examples: [{ contractorId: EXAMPLE_ID, token: "c1QmR0x2vY3d8Qw0mJ5kZ7pL9sT4uV6aB2cD4eF6gH8", expiresAt: DateTime.unsafeMake("2026-12-01T10:15:00Z") }]
  })
) {}

const AcceptInviteFields = {
  pvk: Schema.optional(PublicViewingKey).annotations({
    description: "The contractor's public viewing key (hex), if the client has it before registering on-chain"
  })
}

export class AcceptInvite extends Schema.Class<AcceptInvite>("AcceptInvite")(
  AcceptInviteFields,
  documented(AcceptInviteFields, {
    description: "Accepting an invite as the signed-in contractor",
    examples: [{ pvk: "4f0c2d8e9a1b7c3e5d6f8a0b2c4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e" }]
  })
) {}
