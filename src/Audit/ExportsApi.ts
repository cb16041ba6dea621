import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { DateTime, Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { documented } from "../Domain/Documented.ts"
import { Forbidden } from "../Domain/Errors.ts"
import { BatchId } from "../Domain/Ids.ts"
import { csvHeader, csvRow } from "./Csv.ts"

/** The columns of each export, in order, with what they hold: the CSV header and the operation's description. */
export const PAYOUT_COLUMNS = {
  payoutId: "the payout's id",
  batchId: "its batch's id",
  batchName: "its batch's name",
  contractorId: "the contractor it pays",
  contractorName: "their name",
  contractorAddress: "their Stellar address, empty when they have none",
  status: "`draft`, `ready`, `submitted`, `settled`, `failed` or `canceled`",
  hash: "the fee-bump hash of the transfer that paid it (or tried), empty before one",
  error: "why that transfer failed, empty otherwise",
  createdAt: "when it was added to its batch",
  updatedAt: "when it last changed",
  settledAt: "the close time of the ledger that settled it, empty until then"
} as const

export const CONTRACTOR_COLUMNS = {
  contractorId: "the contractor's id",
  name: "their name",
  email: "their email, empty when none",
  address: "their Stellar address, empty when none",
  status: "`invited`, `onboarding`, `ready` or `inactive`",
  rateAmount: "their agreed rate per period (public directory data), empty when none",
  rateCurrency: "its currency (`USDC`), empty when no rate",
  createdAt: "when they were added",
  updatedAt: "when their entry last changed",
  lastPaidAt: "when a payout to them last settled, empty before one"
} as const

export const AUDIT_COLUMNS = {
  id: "the entry's id",
  at: "when it happened",
  actorType: "`member`, `apiKey` or `system`",
  actorId: "the member's account or Privy id, the API key's id, or the part of the service",
  action: "what happened, such as `batch.approved` or `payout.settled`",
  subjectType: "what it happened to, such as `batch` or `payout`",
  subjectId: "that subject's id",
  from: "the state it left, empty when none",
  to: "the state it reached, empty when none",
  requestId: "the X-Request-Id of the request that made it, empty for the service's own"
} as const

const listed = (columns: Readonly<Record<string, string>>) =>
  Object.entries(columns).map(([name, about]) => `\`${name}\` (${about})`).join(", ")

const Time = (description: string) =>
  Schema.optional(
    Schema.DateTimeUtc.annotations({ description, jsonSchema: { type: "string", format: "date-time", description } })
  )

const RangeFields = {
  from: Time("Only what happened at or after this time (ISO 8601)"),
  to: Time("Only what happened before this time (ISO 8601)")
}

const ordered = (range: { readonly from?: DateTime.Utc | undefined; readonly to?: DateTime.Utc | undefined }) =>
  range.from === undefined || range.to === undefined || DateTime.lessThanOrEqualTo(range.from, range.to) ||
  "from must not be after to"

export const RangeParams = Schema.Struct(RangeFields).pipe(Schema.filter(ordered))

export const PayoutExportParams = Schema.Struct({
  batchId: Schema.optional(BatchId.annotations({ description: "Only the payouts of this batch" })),
  ...RangeFields
}).pipe(Schema.filter(ordered))

const Count = (description: string) => Schema.Int.annotations({ description })

const PayoutCounts = Schema.Struct({
  draft: Count("In a draft batch"),
  ready: Count("Ready to be paid"),
  submitted: Count("Paid by a transfer not yet final"),
  settled: Count("Settled"),
  failed: Count("Failed (and not paid again since)"),
  canceled: Count("Canceled before a transfer for them was sent")
}).annotations({ description: "Payouts created in the range, by the status they are in now" })

const BatchCounts = Schema.Struct({
  draft: Count("Drafts"),
  ready: Count("Locked, not yet started"),
  started: Count("Being paid"),
  paused: Count("Paused"),
  completed: Count("Completed"),
  canceled: Count("Canceled")
}).annotations({ description: "Batches created in the range, by the status they are in now" })

const Seconds = (description: string) =>
  Schema.optional(Schema.Number.annotations({ description }))

const SettleSeconds = Schema.Struct({
  count: Count("How many transfers settled in the range"),
  p50: Seconds("The median seconds from a transfer's submission to the close of the ledger that settled it; absent without any"),
  p95: Seconds("The 95th percentile of those seconds; absent without any")
}).annotations({
  description: "How long the organization's transfers that settled in the range (by their ledger's close time) took"
})

const StatisticsFields = {
  from: Schema.optional(Schema.DateTimeUtc.annotations({ description: "The range's start, as asked; absent for none" })),
  to: Schema.optional(Schema.DateTimeUtc.annotations({ description: "The range's end (excluded), as asked; absent for none" })),
  payouts: PayoutCounts,
  batches: BatchCounts,
  settleSeconds: SettleSeconds
}

export class Statistics extends Schema.Class<Statistics>("Statistics")(
  StatisticsFields,
  documented(StatisticsFields, {
    description: "An organization's payroll over a range of time: its payouts and batches by status, and how long its " +
      "transfers took to settle",
    examples: [{
      from: DateTime.unsafeMake("2026-11-01T00:00:00Z"),
      to: DateTime.unsafeMake("2026-12-01T00:00:00Z"),
      payouts: { draft: 0, ready: 2, submitted: 1, settled: 40, failed: 1, canceled: 0 },
      batches: { draft: 1, ready: 0, started: 1, paused: 0, completed: 3, canceled: 0 },
      settleSeconds: { count: 40, p50: 6.2, p95: 11.8 }
    }]
  })
) {}

/** A CSV answer, its example a header and one row (`example`, by column). */
const Csv = <Name extends string>(description: string, columns: Readonly<Record<Name, string>>, example: Record<Name, string>) => {
  const names = Object.keys(columns) as Array<Name>
  return HttpApiSchema.Text({ contentType: "text/csv" }).annotations({
    description,
    examples: [csvHeader(names) + csvRow(names.map((name) => example[name]))]
  })
}

const EXAMPLE_BATCH = "0d9c3a52-6f1e-4b7a-8c25-3e9f1a7d4b60"
const EXAMPLE_CONTRACTOR = "8a4f2c1e-7b3d-4e9a-a6c5-1f0e3d2b9c87"
const EXAMPLE_ADDRESS = "GCEZWKCA5VLDNRLN3RPRJMRZOX3Z6G5CHCGSNFHEYVXM3XOJMDS674JZ"

const PayoutsCsv = Csv("The payouts, oldest first", PAYOUT_COLUMNS, {
  payoutId: "5b0e7a43-3f2c-4d8e-9a61-2c7d9e4f1b38",
  batchId: EXAMPLE_BATCH,
  batchName: "November 2026",
  contractorId: EXAMPLE_CONTRACTOR,
  contractorName: "Ada Lovelace",
  contractorAddress: EXAMPLE_ADDRESS,
  status: "settled",
  hash: "4142bd200f05c01eab15b78a49f33d71aeb7d2166fedc23c2a903fbb5628ed93",
  error: "",
  createdAt: "2026-11-20T14:02:11.000Z",
  updatedAt: "2026-11-24T09:30:08.000Z",
  settledAt: "2026-11-24T09:30:05.000Z"
})

const ContractorsCsv = Csv("The contractor directory, oldest first", CONTRACTOR_COLUMNS, {
  contractorId: EXAMPLE_CONTRACTOR,
  name: "Ada Lovelace",
  email: "ada@example.com",
  address: EXAMPLE_ADDRESS,
  status: "ready",
  rateAmount: "4500",
  rateCurrency: "USDC",
  createdAt: "2026-10-02T08:15:00.000Z",
  updatedAt: "2026-10-03T10:00:00.000Z",
  lastPaidAt: "2026-11-24T09:30:05.000Z"
})

const AuditCsv = Csv("The audit trail, in the order it was recorded", AUDIT_COLUMNS, {
  id: "c3f1e2d4-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
  at: "2026-11-23T16:40:00.000Z",
  actorType: "member",
  actorId: "GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI",
  action: "batch.readied",
  subjectType: "batch",
  subjectId: EXAMPLE_BATCH,
  from: "draft",
  to: "ready",
  requestId: "8f14e45fceea167a"
})

const AUDITOR = "Needs the permission `audit:read` (403 without it, or for a session of no organization)."
const FILE = "A CSV file (RFC 4180, UTF-8, CRLF line ends, a header row), streamed a page at a time as it is read. A " +
  "cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `'`, so that no " +
  "spreadsheet runs it as a formula (OWASP \"CSV Injection\"); empty cells are absent values. Times are ISO 8601 in " +
  "UTC. No payout amount is exported: the service never sees one."
const RANGE = "400 when `from` is after `to`."

export class ExportsApi extends HttpApiGroup.make("exports")
  .add(
    HttpApiEndpoint.get("payouts", "/exports/payouts.csv")
      .setUrlParams(PayoutExportParams)
      .addSuccess(PayoutsCsv)
      .annotate(OpenApi.Summary, "Export payouts (CSV)")
      .annotate(
        OpenApi.Description,
        "The organization's payouts, oldest first, optionally only one batch's (`batchId`) and those created in " +
          `[\`from\`, \`to\`). Columns: ${listed(PAYOUT_COLUMNS)}. ${FILE} ${AUDITOR} ${RANGE}`
      )
  )
  .add(
    HttpApiEndpoint.get("contractors", "/exports/contractors.csv")
      .addSuccess(ContractorsCsv)
      .annotate(OpenApi.Summary, "Export the contractor directory (CSV)")
      .annotate(
        OpenApi.Description,
        `The organization's contractors, oldest first. Columns: ${listed(CONTRACTOR_COLUMNS)}. ${FILE} ${AUDITOR}`
      )
  )
  .add(
    HttpApiEndpoint.get("audit", "/exports/audit.csv")
      .setUrlParams(RangeParams)
      .addSuccess(AuditCsv)
      .annotate(OpenApi.Summary, "Export the audit trail (CSV)")
      .annotate(
        OpenApi.Description,
        "The organization's audit trail in the order it was recorded, optionally only the entries made in [`from`, " +
          `\`to\`). Columns: ${listed(AUDIT_COLUMNS)}. ${FILE} ${AUDITOR} ${RANGE}`
      )
  )
  .add(
    HttpApiEndpoint.get("statistics", "/statistics")
      .setUrlParams(RangeParams)
      .addSuccess(Statistics)
      .annotate(OpenApi.Summary, "Payroll statistics")
      .annotate(
        OpenApi.Description,
        "Over [`from`, `to`) (either may be left out): the payouts and batches created in it by the status they are " +
          "in now (every status listed, 0 for none), and the median and 95th percentile of the seconds the " +
          "transfers that settled in it took, from their submission to the close of the ledger that settled them. " +
          `${AUDITOR} ${RANGE}`
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Exports")
  .annotate(
    OpenApi.Description,
    "The organization's payouts, directory and audit trail as CSV files for its accountants and auditors, and its " +
      "payroll statistics."
  )
{}
