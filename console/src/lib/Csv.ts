/**
 * RFC 4180 CSV into rows of cells: quoted cells may hold commas, doubled quotes and line breaks; CRLF or LF between
 * records; a trailing line break ends the last record. The first row names the columns.
 */
export const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let cell = ""
  let quoted = false
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  for (let i = 0; i < input.length; i++) {
    const char = input[i]!
    if (quoted) {
      if (char === "\"" && input[i + 1] === "\"") {
        cell += "\""
        i++
      } else if (char === "\"") quoted = false
      else cell += char
    } else if (char === "\"" && cell === "") quoted = true
    else if (char === ",") {
      row.push(cell)
      cell = ""
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && input[i + 1] === "\n") i++
      row.push(cell)
      rows.push(row)
      row = []
      cell = ""
    } else cell += char
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell)
    rows.push(row)
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ""))
}

export interface ImportRow {
  readonly name: string
  readonly email?: string
  readonly address?: string
  readonly amount?: string
}

/** The rows of a contractors CSV (columns name, email, address, amount, in any order and case), or why not. */
export const contractorRows = (text: string): { readonly rows: ReadonlyArray<ImportRow> } | { readonly problem: string } => {
  const [header, ...records] = parseCsv(text)
  if (header === undefined) return { problem: "the file is empty" }
  const columns = header.map((h) => h.trim().toLowerCase())
  const at = (name: string) => columns.indexOf(name)
  if (at("name") === -1) return { problem: "the first row must name the columns, one of them name (and email, address, amount as you have them)" }
  if (records.length === 0) return { problem: "the file has a header row but no contractor" }
  const cell = (record: ReadonlyArray<string>, name: string) => {
    const value = at(name) === -1 ? "" : (record[at(name)] ?? "").trim()
    return value === "" ? {} : { [name]: value }
  }
  return {
    rows: records.map((record) => ({
      name: (record[at("name")] ?? "").trim(),
      ...cell(record, "email"),
      ...cell(record, "address"),
      ...cell(record, "amount")
    }))
  }
}

export interface AmountRow {
  /** The record's number, counting the header as 1 (blank records are skipped). */
  readonly line: number
  /** What names the contractor: the address, else the email, else the name given on the record. */
  readonly key: string
  readonly amount: string
}

/** The rows of an amounts CSV (columns amount and any of address, email, name, in any order and case), or why not. */
export const amountRows = (text: string): { readonly rows: ReadonlyArray<AmountRow> } | { readonly problem: string } => {
  const [header, ...records] = parseCsv(text)
  if (header === undefined) return { problem: "The file is empty." }
  const columns = header.map((h) => h.trim().toLowerCase())
  const keys = ["address", "email", "name"].map((name) => columns.indexOf(name)).filter((i) => i !== -1)
  const amount = columns.indexOf("amount")
  if (amount === -1 || keys.length === 0) {
    return { problem: "The first row must name the columns: amount, and address, email or name for the contractor." }
  }
  if (records.length === 0) return { problem: "The file has a header row but no payout." }
  return {
    rows: records.map((record, i) => ({
      line: i + 2,
      key: keys.map((k) => (record[k] ?? "").trim()).find((v) => v !== "") ?? "",
      amount: (record[amount] ?? "").trim()
    }))
  }
}
