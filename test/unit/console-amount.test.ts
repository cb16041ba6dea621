import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { parse as parseCsvIndependently } from "csv-parse/sync"
import { amountFromDecimal, amountToDecimal } from "../../client/src/sealing/Plaintext.ts"
import { editableAmount, formatAmount, MAX_AMOUNT, parseAmount } from "../../console/src/lib/Amount.ts"
import { amountRows } from "../../console/src/lib/Csv.ts"

const units = fc.bigInt({ min: 1n, max: MAX_AMOUNT })

describe("amounts as the console reads and writes them", () => {
  it("what it writes it reads back, grouped or as the input shows it, and agrees with the sealed documents' decimals", () =>
    fc.assert(fc.property(units, (amount) => {
      expect(parseAmount(formatAmount(amount))).toEqual({ amount })
      expect(parseAmount(editableAmount(amount))).toEqual({ amount })
      // The sealed document's 7-place decimal (client/src/sealing/Plaintext.ts) is the same number.
      expect(parseAmount(amountToDecimal(amount))).toEqual({ amount })
      expect(amountFromDecimal(amountToDecimal(amount))).toBe(amount)
    })))

  it("refuses what is not a positive amount of at most 7 decimals, never with an exception", () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const parsed = parseAmount(text)
      if ("amount" in parsed) {
        expect(parsed.amount > 0n && parsed.amount <= MAX_AMOUNT).toBe(true)
        expect(text.trim().replace(/[\s,]/g, "")).toMatch(/^\d+(\.\d{0,7})?$/)
      } else expect(parsed.problem.length).toBeGreaterThan(0)
    }), { numRuns: 2000 })
    for (const [text, problem] of [["", "Enter an amount."], ["0", "An amount must be more than zero."], ["-5", "An amount is digits with an optional decimal point, such as 1250.00."],
      ["1.00000001", "At most 7 decimal places."], ["1e3", "An amount is digits with an optional decimal point, such as 1250.00."],
      ["1000000000.0000001", "An amount must be at most 1,000,000,000."]] as const) {
      expect([text, parseAmount(text)]).toEqual([text, { problem }])
    }
    expect(formatAmount(12_505_000_000n)).toBe("1,250.50")
    expect(formatAmount(1n)).toBe("0.0000001")
  })

  it("reads an amounts CSV as an independent RFC 4180 parser does: the contractor's key and the amount of each record", () =>
    fc.assert(fc.property(
      fc.array(fc.record({ name: fc.string({ maxLength: 12 }), email: fc.string({ maxLength: 12 }), amount: fc.string({ maxLength: 10 }) }), { minLength: 1, maxLength: 8 }),
      (records) => {
        const quote = (v: string) => `"${v.replace(/"/g, "\"\"")}"`
        const text = ["Email,NAME,amount", ...records.map((r) => [r.email, r.name, r.amount].map(quote).join(","))].join("\r\n")
        const ours = amountRows(text)
        const theirs = (parseCsvIndependently(text, { relax_column_count: true, skip_empty_lines: false }) as Array<Array<string>>).slice(1)
          .filter((row) => row.some((c) => c.trim() !== ""))
        expect("rows" in ours).toBe(theirs.length > 0)
        if (!("rows" in ours)) return
        expect(ours.rows.map((r) => [r.key, r.amount])).toEqual(theirs.map(([email = "", name = "", amount = ""]) => [
          email.trim() !== "" ? email.trim() : name.trim(),
          amount.trim()
        ]))
      }
    )))
})
