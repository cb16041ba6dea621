// How the sealed documents spell their values: amounts as decimal strings with exactly 7 places (the token's units:
// 1 unit = 0.0000001), 256-bit secrets as "0x" + 64 lowercase hex digits, identifiers as non-empty single-line
// strings (they are joined with "\n" into the AADs, so a newline in one would make two AADs alike).
import { Either, Schema } from "effect"
import { SealingInputInvalid } from "./Errors.ts"

export const AMOUNT_DECIMALS = 7
const SCALE = 10n ** BigInt(AMOUNT_DECIMALS)
const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)\.[0-9]{7}$/
const HEX_PATTERN = /^0x[0-9a-f]{64}$/
const ID_PATTERN = /^[^\n\r]+$/

/** A non-negative amount in the token's units, as "<whole>.<7 digits>". */
export const amountToDecimal = (amount: bigint): string => {
  if (amount < 0n) throw new SealingInputInvalid({ reason: "AmountInvalid", message: "an amount is negative" })
  return `${amount / SCALE}.${(amount % SCALE).toString().padStart(AMOUNT_DECIMALS, "0")}`
}

export const amountFromDecimal = (text: string): bigint => {
  const [whole = "", fraction = ""] = text.split(".")
  return BigInt(whole) * SCALE + BigInt(fraction)
}

export const secretToHex = (value: bigint, subject: string): string => {
  if (value < 0n || value >= 1n << 256n) {
    throw new SealingInputInvalid({ reason: "AmountInvalid", message: `${subject} is not a 256-bit value` })
  }
  return `0x${value.toString(16).padStart(64, "0")}`
}

export const requireId = (id: string, subject: string): string => {
  if (!ID_PATTERN.test(id)) {
    throw new SealingInputInvalid({ reason: "IdentifierInvalid", message: `${subject} is empty or spans lines` })
  }
  return id
}

export const DecimalAmount = Schema.String.pipe(Schema.pattern(AMOUNT_PATTERN))
export const Hex256 = Schema.String.pipe(Schema.pattern(HEX_PATTERN))
export const Identifier = Schema.String.pipe(Schema.pattern(ID_PATTERN))

/** The authenticated plaintext read as JSON of `schema`, or undefined when it is not one. */
export const decodeDocument = <A, I>(schema: Schema.Schema<A, I>, plaintext: Uint8Array): A | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plaintext))
  } catch {
    return undefined
  }
  const decoded = Schema.decodeUnknownEither(schema)(parsed)
  return Either.isRight(decoded) ? decoded.right : undefined
}
