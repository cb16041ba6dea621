// A period on the command line (`--from`, `--to`: whole UTC days, both included), as `payroll audit report` and
// `payroll recipient request` take it.
import { Options } from "@effect/cli"
import { usage } from "./Failure.ts"

const DAY = 86_400_000

/** A UTC calendar day, YYYY-MM-DD, as its first millisecond. */
const dayOf = (text: string, option: string): number => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  const ms = match === null ? Number.NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) throw usage(`--${option} ${JSON.stringify(text)} is not a day: give YYYY-MM-DD`)
  return ms
}

/** [--from, --to] as whole UTC days, both included: [from 00:00, the day after --to 00:00). Throws a usage failure. */
export const periodBounds = (from: string, to: string): { readonly start: Date; readonly end: Date } => {
  const start = dayOf(from, "from")
  const end = dayOf(to, "to") + DAY
  if (end <= start) throw usage("--to is before --from")
  return { start: new Date(start), end: new Date(end) }
}

/** `--from` and `--to`, described once for every command that takes a period. */
export const periodOptions = {
  from: Options.text("from").pipe(Options.withDescription("The first day of the period, YYYY-MM-DD (UTC)")),
  to: Options.text("to").pipe(Options.withDescription("The last day of the period, YYYY-MM-DD (UTC), included"))
}
