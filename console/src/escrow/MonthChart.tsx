import type { MonthTotal } from "@confidential-payroll/client/confidential"
import { formatAmount } from "../lib/Amount.ts"

const WIDTH = 560
const BAR_AREA = 160
const LABEL = 20

/** The period's months as bars of what was paid out (payouts and other transfers): an SVG, its numbers as its title. */
export const MonthChart = ({ months }: { readonly months: ReadonlyArray<MonthTotal> }) => {
  const paid = months.map((m) => m.payouts.total + m.otherTransfers.total)
  const top = paid.reduce((a, b) => (b > a ? b : a), 1n)
  const slot = months.length === 0 ? WIDTH : WIDTH / months.length
  return (
    <svg role="img" aria-labelledby="month-chart-title" viewBox={`0 0 ${WIDTH} ${BAR_AREA + LABEL}`} className="month-chart" width="100%">
      <title id="month-chart-title">{months.map((m, i) => `${m.month}: ${formatAmount(paid[i]!)}`).join("; ") || "No months"}</title>
      {months.map((m, i) => {
        const payouts = Number((m.payouts.total * BigInt(BAR_AREA)) / top)
        const other = Number((m.otherTransfers.total * BigInt(BAR_AREA)) / top)
        const x = i * slot + slot * 0.2
        const w = slot * 0.6
        return (
          <g key={m.month}>
            <rect x={x} y={BAR_AREA - payouts} width={w} height={payouts} fill="#3e1bdb" />
            <rect x={x} y={BAR_AREA - payouts - other} width={w} height={other} fill="#c4b5fd" />
            <text x={x + w / 2} y={BAR_AREA + 14} textAnchor="middle" fontSize="11">{m.month}</text>
          </g>
        )
      })}
    </svg>
  )
}
