/** What a cell may hold: text, a number, or nothing (an empty cell). */
export type Cell = string | number | null | undefined

/**
 * A first character that makes a spreadsheet read the cell as a formula (OWASP "CSV Injection": `=`, `+`, `-`, `@`,
 * tab, carriage return). Every such cell is escaped, whatever its column: a number like `-2` would be escaped too,
 * but no column here holds a negative number (rates are positive), so nothing a reader needs as a number changes.
 */
const FORMULA_START = /^[=+\-@\t\r]/

/** RFC 4180 §2.6: a field holding a quote, a comma or a line break is enclosed in quotes. */
const NEEDS_QUOTES = /[",\r\n]/

/** One field: formula-looking text gets a leading `'`, then RFC 4180 quoting (quotes doubled). */
export const csvCell = (value: Cell): string => {
  if (value === null || value === undefined) return ""
  const text = String(value)
  const inert = FORMULA_START.test(text) ? `'${text}` : text
  return NEEDS_QUOTES.test(inert) ? `"${inert.replaceAll("\"", "\"\"")}"` : inert
}

/** One record, ended by CRLF as RFC 4180 §2.1 has it. */
export const csvRow = (cells: ReadonlyArray<Cell>): string => cells.map(csvCell).join(",") + "\r\n"

/** The header record: the columns' names, encoded as any other record. */
export const csvHeader = (columns: ReadonlyArray<string>): string => csvRow(columns)
