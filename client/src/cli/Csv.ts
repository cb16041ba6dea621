import { parseUsdc } from "./Amount.ts"

const KEY_COLUMNS = ["payout", "payoutid", "contractor", "contractorid", "address"]

/**
 * Amount rows of a CSV: a header naming `amount` and one column that says whose (`payout`, `contractor` or
 * `address`), then one row a payout; amounts in USDC with up to 7 decimals. Plain comma-separated values, no quoting.
 */
export const amountRows = (text: string): { readonly rows: ReadonlyArray<{ readonly key: string; readonly amount: bigint }> } | { readonly problem: string } => {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "")
  const header = (lines[0] ?? "").split(",").map((h) => h.trim().toLowerCase().replace(/[^a-z]/g, ""))
  const keyAt = header.findIndex((h) => KEY_COLUMNS.includes(h))
  const amountAt = header.indexOf("amount")
  if (keyAt < 0 || amountAt < 0) return { problem: "the header must name `amount` and one of `payout`, `contractor` or `address`" }
  const rows: Array<{ key: string; amount: bigint }> = []
  for (const [n, line] of lines.slice(1).entries()) {
    const cells = line.split(",").map((c) => c.trim())
    const key = cells[keyAt] ?? ""
    const amount = parseUsdc(cells[amountAt] ?? "")
    if (amount === undefined) return { problem: `row ${n + 2}: ${JSON.stringify(cells[amountAt] ?? "")} is not an amount (USDC, up to 7 decimals)` }
    if (key === "") return { problem: `row ${n + 2} names no payout, contractor or address` }
    rows.push({ key, amount })
  }
  return { rows }
}
