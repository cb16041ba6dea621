// The report as CSV for an accountant: three files, not one file with sections. A spreadsheet imports one table per
// file (one header row, the same columns on every row); sections stacked in one file break that import (the second
// header becomes a data row, blank separator rows become empty records), and tools like csv-parse or a pivot table
// reject rows of another width. So: the operations (one row each, the ledger an accountant reconciles), the totals
// per contractor and the totals per month, each RFC 4180 with a header, CRLF, and spreadsheet formulas neutralised
// (the rules of src/Audit/Csv.ts, the service's own exports, which the client may not import: .dependency-cruiser.cjs
// "the-client-imports-only-the-contract"). Amounts are decimals in the token's unit (7 places), which a spreadsheet
// reads as numbers; ids and hashes stay text.
import { AMOUNT_DECIMALS } from "../../sealing/Plaintext.ts"
import type { AuditReport, AuditRow, Sum } from "./ReportModel.ts"

type Cell = string | number | undefined

/**
 * OWASP "CSV Injection": a cell a spreadsheet would run as a formula gets a leading `'`; then RFC 4180 quoting. A
 * negative decimal (a broken chain's expected balance) is no formula, and stays a number for the accountant.
 */
const csvCell = (value: Cell): string => {
  if (value === undefined) return ""
  const text = String(value)
  const inert = /^[=+\-@\t\r]/.test(text) && !/^-\d+(\.\d+)?$/.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll("\"", "\"\"")}"` : inert
}

/** One record, ended by CRLF (RFC 4180 §2.1). */
const csvRow = (cells: ReadonlyArray<Cell>): string => cells.map(csvCell).join(",") + "\r\n"
const csvHeader = csvRow

const SCALE = 10n ** BigInt(AMOUNT_DECIMALS)

/** "<whole>.<7 digits>", signed: an expected balance of a broken chain can be negative. */
export const formatUnits = (units: bigint): string => {
  const magnitude = units < 0n ? -units : units
  return `${units < 0n ? "-" : ""}${magnitude / SCALE}.${(magnitude % SCALE).toString().padStart(AMOUNT_DECIMALS, "0")}`
}

const units = (v: bigint | undefined): Cell => (v === undefined ? undefined : formatUnits(v))

export const OPERATION_COLUMNS = [
  "time_utc", "month", "ledger", "event_id", "transaction_hash", "wallet", "operation", "counterparty", "amount",
  "amount_source", "balance_after", "continuity", "expected_balance", "decrypted", "payout", "payout_id", "batch_id",
  "contractor_id", "contractor_name", "receipt", "receipt_amount"
] as const

const operationCells = (row: AuditRow): Array<Cell> => {
  const payout = row.match.kind === "payout" ? row.match : undefined
  return [
    row.closedAt, row.closedAt.slice(0, 7), row.ledger, row.eventId, row.txHash, row.wallet, row.kind, row.counterparty,
    units(row.amount), row.amountSource, units(row.balanceAfter), row.continuity?.status,
    row.continuity?.status === "breaks" ? formatUnits(row.continuity.expected) : undefined,
    row.decrypted ? "yes" : "no", payout === undefined ? row.match.kind : "payout", payout?.payoutId, payout?.batchId,
    payout?.contractorId, payout?.contractorName, row.receipt?.status,
    row.receipt?.status === "differs" ? formatUnits(row.receipt.receiptAmount) : undefined
  ]
}

export const CONTRACTOR_COLUMNS = ["contractor_id", "contractor_name", "payouts", "total", "undecryptable_payouts"] as const

const sumCells = (s: Sum): Array<Cell> => [s.count, formatUnits(s.total)]

export const MONTH_COLUMNS = [
  "month", "payouts", "payouts_total", "other_transfers", "other_transfers_total", "withdrawals", "withdrawals_total",
  "deposits", "deposits_total", "received", "received_total"
] as const

export interface ReportCsv {
  readonly operations: string
  readonly contractors: string
  readonly months: string
}

export const reportCsv = (report: AuditReport): ReportCsv => ({
  operations: csvHeader(OPERATION_COLUMNS) + report.rows.map((r) => csvRow(operationCells(r))).join(""),
  contractors: csvHeader(CONTRACTOR_COLUMNS) +
    report.contractors.map((c) => csvRow([c.contractorId, c.contractorName, ...sumCells(c.paid), c.undecryptable])).join(""),
  months: csvHeader(MONTH_COLUMNS) +
    report.months.map((m) =>
      csvRow([m.month, ...sumCells(m.payouts), ...sumCells(m.otherTransfers), ...sumCells(m.withdrawals), ...sumCells(m.deposits), ...sumCells(m.received)])
    ).join("")
})
