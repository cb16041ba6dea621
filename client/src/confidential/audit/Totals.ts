// The report's totals, from its rows alone: per contractor (the payouts the product sent) and per UTC month.
import type { AuditRow, ContractorTotal, MonthTotal, Sum } from "./ReportModel.ts"

const ZERO: Sum = { count: 0, total: 0n }
const add = (sum: Sum, amount: bigint): Sum => ({ count: sum.count + 1, total: sum.total + amount })

/** The contractors paid in the rows, by name (then id): what the product's payouts sent them. */
export const contractorTotals = (rows: ReadonlyArray<AuditRow>): Array<ContractorTotal> => {
  const byId = new Map<string, ContractorTotal>()
  for (const row of rows) {
    if (row.match.kind !== "payout") continue
    const { contractorId, contractorName } = row.match
    const current = byId.get(contractorId) ??
      { contractorId, ...(contractorName === undefined ? {} : { contractorName }), paid: ZERO, undecryptable: 0 }
    byId.set(contractorId, row.amount === undefined
      ? { ...current, undecryptable: current.undecryptable + 1 }
      : { ...current, paid: add(current.paid, row.amount) })
  }
  const label = (c: ContractorTotal) => c.contractorName ?? c.contractorId
  return [...byId.values()].sort((a, b) => label(a).localeCompare(label(b)) || a.contractorId.localeCompare(b.contractorId))
}

type Column = Exclude<keyof MonthTotal, "month">

/** Which month column a row adds to; merges and escrow moves only move money within the wallet. */
const columnOf = (row: AuditRow): Column | undefined => {
  switch (row.kind) {
    case "transfer":
      return row.match.kind === "payout" ? "payouts" : "otherTransfers"
    case "spender_transfer":
      return "otherTransfers"
    case "withdraw":
      return "withdrawals"
    case "deposit":
      return "deposits"
    case "transfer_in":
      return "received"
    default:
      return undefined
  }
}

const nextMonth = (month: string): string => {
  const [year, m] = month.split("-").map(Number) as [number, number]
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, "0")}`
}

const emptyMonth = (month: string): MonthTotal =>
  ({ month, payouts: ZERO, otherTransfers: ZERO, withdrawals: ZERO, deposits: ZERO, received: ZERO })

/** Each UTC month from the first row's to the last's, those without a row included (a chart's axis has no holes). */
export const monthTotals = (rows: ReadonlyArray<AuditRow>): Array<MonthTotal> => {
  const byMonth = new Map<string, MonthTotal>()
  for (const row of rows) {
    const column = columnOf(row)
    if (column === undefined || row.amount === undefined) continue
    const month = row.closedAt.slice(0, 7)
    const current = byMonth.get(month) ?? emptyMonth(month)
    byMonth.set(month, { ...current, [column]: add(current[column], row.amount) })
  }
  const months = [...byMonth.keys()].sort()
  const first = months[0]
  const last = months[months.length - 1]
  if (first === undefined || last === undefined) return []
  const all: Array<MonthTotal> = []
  for (let month = first; month <= last; month = nextMonth(month)) all.push(byMonth.get(month) ?? emptyMonth(month))
  return all
}
