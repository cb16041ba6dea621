// The report as JSON: the same model with every amount an integer string in the token's units (JSON numbers lose
// precision past 2^53; amounts reach 2^127), and `decimals` saying how to read them.
import { AMOUNT_DECIMALS } from "../../sealing/Plaintext.ts"
import type { AuditReport } from "./ReportModel.ts"

/** A value with its bigints as decimal strings, recursively. */
export type Jsonified<T> = T extends bigint ? string
  : T extends ReadonlyArray<infer E> ? ReadonlyArray<Jsonified<E>>
  : T extends object ? { readonly [K in keyof T]: Jsonified<T[K]> }
  : T

const jsonify = (value: unknown): unknown => {
  if (typeof value === "bigint") return value.toString()
  if (Array.isArray(value)) return value.map(jsonify)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonify(v)]))
  }
  return value
}

export type AuditReportJson = { readonly decimals: number } & Jsonified<AuditReport>

export const reportJson = (report: AuditReport): AuditReportJson =>
  ({ decimals: AMOUNT_DECIMALS, ...(jsonify(report) as Jsonified<AuditReport>) })
