import { Schema } from "effect"
import { ContractorId, OrgId } from "./Ids.ts"
import { Page, PageParams } from "./Page.ts"
import { Optional } from "./Row.ts"
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

/** A directory record as stored (`contractors` row): absence is `Option`, times are `DateTime.Utc`. */
export const ContractorRecord = Schema.Struct({
  id: ContractorId,
  orgId: OrgId,
  name: Schema.String,
  email: Schema.OptionFromNullOr(Schema.String),
  address: Schema.OptionFromNullOr(Schema.String),
  pvk: Schema.OptionFromNullOr(Schema.String),
  auditorId: Schema.OptionFromNullOr(Schema.Int),
  status: ContractorStatus,
  rate: Schema.OptionFromNullOr(Rate),
  userSub: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromDate,
  lastPaidAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
})
export type ContractorRecord = typeof ContractorRecord.Type

/** What the API shows of a record: everything but the organization and the linked user. */
export class Contractor extends Schema.Class<Contractor>("Contractor")({
  id: ContractorId,
  name: Schema.String,
  email: Optional(Schema.String),
  address: Optional(Schema.String),
  pvk: Optional(Schema.String),
  auditorId: Optional(Schema.Int),
  status: ContractorStatus,
  rate: Optional(Rate),
  createdAt: Schema.DateTimeUtc,
  lastPaidAt: Optional(Schema.DateTimeUtc)
}) {
  static fromRecord(record: ContractorRecord): Contractor {
    return new Contractor(record)
  }
}

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
  imported: Schema.Array(Contractor),
  errors: Schema.Array(BulkRowError)
}) {}

export class ContractorPage extends Schema.Class<ContractorPage>("ContractorPage")(Page(Contractor)) {}

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
