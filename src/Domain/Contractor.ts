import { Model } from "@effect/sql"
import { Schema } from "effect"
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
  amount: Amount,
  currency: Schema.Literal("USDC").annotations({ message: () => "currency must be USDC" })
})
export type Rate = typeof Rate.Type

/** Public viewing key: hex of the registered public key. */
export const PublicViewingKey = Schema.String.pipe(
  Schema.pattern(/^([0-9a-f]{2}){16,128}$/, { message: () => "pvk must be lowercase hex of 16 to 128 bytes" })
)

/** Text as stored; the request bodies (`CreateContractor`, `UpdateContractor`) say what is accepted. */
const Stored = Schema.String

/**
 * The contractor, defined once: its `contractors` row (`Contractor` itself, the select variant, with the
 * organization and the linked user), what an insert writes (`Contractor.insert`) and what the API answers
 * (`Contractor.json`: everything but the organization and the linked user). Absence is `Option`, a NULL column, an
 * absent JSON key; times are `DateTime.Utc`. The rate is one jsonb column.
 */
export class Contractor extends Model.Class<Contractor>("Contractor")({
  id: Model.GeneratedByApp(ContractorId),
  orgId: Model.FieldExcept("json", "jsonCreate", "jsonUpdate")(OrgId),
  name: Model.FieldExcept("jsonCreate", "jsonUpdate")(Stored),
  email: Model.FieldOption(Model.FieldExcept("jsonCreate", "jsonUpdate")(Stored)),
  address: Model.FieldOption(Model.FieldExcept("jsonCreate", "jsonUpdate")(Stored)),
  pvk: Model.FieldOption(Model.FieldExcept("jsonCreate", "jsonUpdate")(Stored)),
  auditorId: Model.FieldOption(Model.FieldExcept("jsonCreate", "jsonUpdate")(Schema.Int)),
  status: Model.FieldExcept("jsonCreate", "jsonUpdate")(ContractorStatus),
  rate: Model.FieldOption(Model.Field({ select: Rate, insert: Schema.parseJson(Rate), update: Schema.parseJson(Rate), json: Rate })),
  userSub: Model.FieldOption(Model.FieldOnly("select", "insert", "update")(Stored)),
  createdAt: Model.Field({ select: Schema.DateTimeUtcFromDate, json: Schema.DateTimeUtc }),
  lastPaidAt: Model.FieldOption(Model.Field({ select: Schema.DateTimeUtcFromDate, json: Schema.DateTimeUtc }))
}) {}

/** What an insert writes. */
export type NewContractor = typeof Contractor.insert.Type

type Updatable = Omit<typeof Contractor.update.Type, "id" | "orgId">

/** Columns to change (`Contractor.update` without its keys); an absent or undefined one stays as it is. */
export type ContractorChanges = { readonly [K in keyof Updatable]?: Updatable[K] | undefined }

/** What the API shows of a contractor (named `Contractor` in the OpenAPI document). */
export const ContractorJson = Contractor.json.annotations({ identifier: "Contractor", title: "Contractor" })

export class CreateContractor extends Schema.Class<CreateContractor>("CreateContractor")({
  name: ContractorName,
  email: Schema.optional(Email),
  address: Schema.optional(StellarAddress),
  rate: Schema.optional(Rate)
}) {}

export class UpdateContractor extends Schema.Class<UpdateContractor>("UpdateContractor")({
  name: Schema.optional(ContractorName),
  email: Schema.optional(Schema.NullOr(Email)),
  address: Schema.optional(Schema.NullOr(StellarAddress)),
  rate: Schema.optional(Schema.NullOr(Rate)),
  status: Schema.optional(ContractorStatus)
}) {}

export const MAX_BULK_ROWS = 1000

/** Rows are checked one by one so that a bad row is reported, not fatal to the import. */
export const BulkRow = Schema.Unknown.annotations({
  identifier: "BulkRow",
  description: "{ name: string, email?: string, address?: string, amount?: number | string }",
  jsonSchema: {
    type: "object",
    required: ["name"],
    properties: {
      name: { type: "string" },
      email: { type: "string" },
      address: { type: "string" },
      amount: { type: ["number", "string"] }
    }
  }
})

export class BulkImport extends Schema.Class<BulkImport>("BulkImport")({
  rows: Schema.Array(BulkRow).pipe(
    Schema.maxItems(MAX_BULK_ROWS, { message: () => `at most ${MAX_BULK_ROWS} rows per import` })
  )
}) {}

export class BulkRowError extends Schema.Class<BulkRowError>("BulkRowError")({
  row: Schema.Int,
  reason: Schema.String
}) {}

export class BulkImportResult extends Schema.Class<BulkImportResult>("BulkImportResult")({
  imported: Schema.Array(Contractor.json),
  errors: Schema.Array(BulkRowError)
}) {}

export class ContractorPage extends Schema.Class<ContractorPage>("ContractorPage")(Page(Contractor.json)) {}

export const ListContractorsParams = Schema.Struct({
  ...PageParams,
  status: Schema.optional(ContractorStatus),
  q: Schema.optional(StorableText.pipe(Schema.maxLength(200)))
})

export class Invitation extends Schema.Class<Invitation>("Invitation")({
  contractorId: ContractorId,
  token: Schema.String,
  expiresAt: Schema.DateTimeUtc
}) {}

export class AcceptInvite extends Schema.Class<AcceptInvite>("AcceptInvite")({
  pvk: Schema.optional(PublicViewingKey)
}) {}
