// The CLI's `--from`/`--to` (client/src/cli/Period.ts): every real UTC day is taken as its first millisecond, the
// period ends the day after --to, and anything that is not a YYYY-MM-DD day, or a period running backwards, is a usage
// failure (exit 1) naming the option.
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { CliFailure, EXIT } from "../../client/src/cli/Failure.ts"
import { periodBounds } from "../../client/src/cli/Period.ts"

const DAY = 86_400_000
const days = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))

const failureOf = (run: () => unknown): CliFailure => {
  try {
    run()
  } catch (e) {
    if (e instanceof CliFailure) return e
    throw e
  }
  throw new Error("no failure")
}

describe("the CLI's period", () => {
  it("takes [from 00:00, the day after to 00:00) for any two days in order", () => {
    fc.assert(fc.property(days, days, (a, b) => {
      const [from, to] = a <= b ? [a, b] : [b, a]
      const { end, start } = periodBounds(from, to)
      expect(start.toISOString()).toBe(`${from}T00:00:00.000Z`)
      expect(end.getTime() - DAY).toBe(Date.parse(`${to}T00:00:00Z`))
    }))
  })

  it("refuses a period that runs backwards, naming --to", () => {
    fc.assert(fc.property(days, days, (a, b) => {
      fc.pre(a !== b)
      const [from, to] = a < b ? [b, a] : [a, b]
      const failure = failureOf(() => periodBounds(from, to))
      expect(failure.code).toBe(EXIT.usage)
      expect(failure.message).toBe("--to is before --from")
    }))
  })

  it("refuses any text that is not a calendar day, naming the option", () => {
    const notDays = fc.oneof(
      fc.string(),
      // The right shape, an impossible date: month 13, day 31 of a 30-day month, 29 February of a common year.
      fc.constantFrom("2026-13-01", "2026-04-31", "2027-02-29", "2026-00-10", "2026-1-05", " 2026-01-05", "2026-01-05T00:00")
    ).filter((text) => !/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ||
      new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text)
    fc.assert(fc.property(notDays, (text) => {
      const failure = failureOf(() => periodBounds(text, "2026-12-31"))
      expect(failure.code).toBe(EXIT.usage)
      expect(failure.message).toBe(`--from ${JSON.stringify(text)} is not a day: give YYYY-MM-DD`)
    }))
  })
})
