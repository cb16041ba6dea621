import { Either, Schema } from "effect"
import { Amount, ContractorName, Email } from "../Domain/Contractor.ts"
import { StellarAddress } from "../Domain/Stellar.ts"
import { textProblem } from "../Domain/Text.ts"

export interface ValidRow {
  readonly row: number
  readonly name: string
  readonly email: string | null
  readonly address: string | null
  readonly amount: string | null
}

export interface RowError {
  readonly row: number
  readonly reason: string
}

const decodeName = Schema.decodeUnknownEither(ContractorName)
const decodeEmail = Schema.decodeUnknownEither(Email)
const decodeAddress = Schema.decodeUnknownEither(StellarAddress)
const decodeAmount = Schema.decodeUnknownEither(Amount)

const blank = (value: unknown) => value === undefined || value === null || value === ""

/** A CSV cell that holds a number is read as its decimal text; exponent forms are refused. */
const amountText = (value: unknown): unknown =>
  typeof value === "number" && Number.isFinite(value) ? String(value) : value

const checkRow = (raw: unknown, row: number): Either.Either<ValidRow, RowError> => {
  const fail = (reason: string) => Either.left({ row, reason })
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return fail("row must be an object")
  const r = raw as Record<string, unknown>
  for (const field of ["name", "email", "address", "amount"] as const) {
    const value = r[field]
    const problem = typeof value === "string" ? textProblem(value) : undefined
    if (problem !== undefined) return fail(`invalid ${field}: ${problem}`)
  }
  const name = decodeName(r.name)
  if (Either.isLeft(name)) return fail("invalid name: must be 1 to 200 characters")
  const email = blank(r.email) ? Either.right(null) : decodeEmail(r.email)
  if (Either.isLeft(email)) return fail("invalid email")
  const address = blank(r.address) ? Either.right(null) : decodeAddress(r.address)
  if (Either.isLeft(address)) return fail("invalid address: must be a Stellar G... or C... address")
  const amount = blank(r.amount) ? Either.right(null) : decodeAmount(amountText(r.amount))
  if (Either.isLeft(amount)) return fail("invalid amount: must be a positive number with at most 7 decimal places")
  return Either.right({ row, name: name.right, email: email.right, address: address.right, amount: amount.right })
}

/** Checks every row and the rows against each other; the directory is checked by the caller. */
export const BulkRows = {
  validate(rows: ReadonlyArray<unknown>) {
    const valid: Array<ValidRow> = []
    const errors: Array<RowError> = []
    const emails = new Set<string>()
    const addresses = new Set<string>()
    rows.forEach((raw, i) => {
      const checked = checkRow(raw, i)
      if (Either.isLeft(checked)) return errors.push(checked.left)
      const row = checked.right
      const email = row.email?.toLowerCase() ?? null
      if (email !== null && emails.has(email)) return errors.push({ row: i, reason: "duplicate email in the import" })
      if (row.address !== null && addresses.has(row.address)) {
        return errors.push({ row: i, reason: "duplicate address in the import" })
      }
      if (email !== null) emails.add(email)
      if (row.address !== null) addresses.add(row.address)
      valid.push(row)
    })
    return { valid, errors }
  }
} as const
