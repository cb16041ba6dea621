import type { MonthTotal } from "@confidential-payroll/client/confidential"
import { formatAmount } from "../lib/Amount.ts"

// Each month a slot of fixed size: a period of one month is one bar, not a bar the width of the page; a long period
// shrinks to the page's width (max-width in styles.css), its proportions kept.
const SLOT = 96
const BAR = 48
const BAR_AREA = 140
const TOP = 18
const LABEL = 20

// The legend's swatches (styles.css) repeat these two colours.
const PAYOUTS = "#3e1bdb"
const OTHER = "#a78bfa"

/** The period's months as bars of what was paid out (payouts and other transfers), each with its total above it. */
export const MonthChart = ({ months }: { readonly months: ReadonlyArray<MonthTotal> }) => {
  const paid = months.map((m) => m.payouts.total + m.otherTransfers.total)
  const top = paid.reduce((a, b) => (b > a ? b : a), 1n)
  const width = Math.max(1, months.length) * SLOT
  const height = TOP + BAR_AREA + LABEL
  return (
    <figure className="month-chart">
      <svg role="img" aria-labelledby="month-chart-title" viewBox={`0 0 ${width} ${height}`} width={width} height={height}>
        <title id="month-chart-title">{months.map((m, i) => `${m.month}: ${formatAmount(paid[i]!)} paid out`).join("; ") || "No months"}</title>
        {months.map((m, i) => {
          const payouts = Number((m.payouts.total * BigInt(BAR_AREA)) / top)
          const other = Number((m.otherTransfers.total * BigInt(BAR_AREA)) / top)
          const x = i * SLOT + (SLOT - BAR) / 2
          const base = TOP + BAR_AREA
          return (
            <g key={m.month}>
              <rect x={x} y={base - payouts} width={BAR} height={payouts} fill={PAYOUTS} />
              <rect x={x} y={base - payouts - other} width={BAR} height={other} fill={OTHER} />
              <text x={x + BAR / 2} y={base - payouts - other - 5} textAnchor="middle" fontSize="11">{formatAmount(paid[i]!)}</text>
              <text x={x + BAR / 2} y={base + 15} textAnchor="middle" fontSize="12">{m.month}</text>
            </g>
          )
        })}
      </svg>
      <figcaption className="month-chart__legend">
        <span><i className="month-chart__swatch month-chart__swatch--payouts" aria-hidden="true" />Payouts</span>
        <span><i className="month-chart__swatch month-chart__swatch--other" aria-hidden="true" />Other transfers</span>
      </figcaption>
    </figure>
  )
}
