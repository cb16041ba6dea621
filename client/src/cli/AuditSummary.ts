import { formatUnits } from "../confidential/audit/ReportCsv.ts"
import type { AuditReport, Sum } from "../confidential/audit/ReportModel.ts"

const usdc = (units: bigint | undefined) => (units === undefined ? "unknown" : `${formatUnits(units)} USDC`)
const sum = (s: Sum) => `${s.count} · ${formatUnits(s.total)}`

/** The report for a person at a terminal: the totals an accountant books and the checks, not every row. */
export const summaryLines = (report: AuditReport, days: { readonly from: string; readonly to: string }): Array<string> => {
  const notAPayout = report.rows.filter((r) => r.match.kind === "not a payout here" && (r.kind === "transfer" || r.kind === "spender_transfer"))
  const { checks } = report
  return [
    `Audit report ${days.from} to ${days.to} (UTC), ${report.wallets.length} paying wallet(s), ${report.rows.length} operation(s)`,
    ...report.wallets.map((w) =>
      `  ${w.wallet}: spendable ${usdc(w.openingSpendable)} → ${usdc(w.closingSpendable)}; ${w.checkpoints} checkpoint(s), ${w.breaks} break(s), ${w.unchecked} unchecked`),
    "Per contractor (payouts · total USDC):",
    ...(report.contractors.length === 0 ? ["  none"] : report.contractors.map((c) =>
      `  ${c.contractorName ?? c.contractorId}  ${sum(c.paid)}${c.undecryptable === 0 ? "" : `  (${c.undecryptable} undecryptable)`}`)),
    "Per month (count · total USDC):",
    ...(report.months.length === 0 ? ["  none"] : report.months.map((m) =>
      `  ${m.month}  payouts ${sum(m.payouts)}  other transfers ${sum(m.otherTransfers)}  withdrawals ${sum(m.withdrawals)}  deposits ${sum(m.deposits)}  received ${sum(m.received)}`)),
    `Not a payout here: ${notAPayout.length} transfer(s)${notAPayout.length === 0 ? "" : `, ${notAPayout.map((r) => `${usdc(r.amount)} to ${r.counterparty ?? "?"}`).join("; ")}`}`,
    `Continuity: ${checks.breaks === 0 ? "unbroken" : `${checks.breaks} break(s)`}; undecryptable: ${checks.undecryptable}; receipts: ${checks.receiptsMatch} match, ${checks.receiptsDiffer} differ` +
      `${checks.keyMatches === undefined ? "" : checks.keyMatches ? "; the escrow key is the registry's" : "; the escrow key is NOT the registry's"}`,
    ...(report.unreadable.length === 0 ? [] : [`Unreadable events: ${report.unreadable.map((u) => `${u.id} (${u.reason})`).join(", ")}`])
  ]
}
