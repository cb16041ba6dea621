// Amounts as a person types and reads them. The token (and the sealed documents, client/src/sealing/Plaintext.ts)
// counts in units of 0.0000001 (7 decimals, as Stellar's USDC); the console parses what is typed into those units
// exactly (no floating point) and writes them back grouped, with at least two decimals.

export const DECIMALS = 7
const SCALE = 10n ** BigInt(DECIMALS)
/** The largest payout the console accepts: 1,000,000,000 (a typo guard; the circuits take far more). */
export const MAX_AMOUNT = 1_000_000_000n * SCALE

export type Parsed = { readonly amount: bigint } | { readonly problem: string }

/** "1,234.5", "1234.50", "0.0000001" into units; a problem in words otherwise. Commas and spaces group digits only. */
export const parseAmount = (text: string): Parsed => {
  const plain = text.trim().replace(/[\s,]/g, "")
  if (plain === "") return { problem: "Enter an amount." }
  const match = /^(\d+)(?:\.(\d*))?$/.exec(plain)
  if (match === null) return { problem: "An amount is digits with an optional decimal point, such as 1250.00." }
  const fraction = match[2] ?? ""
  if (fraction.length > DECIMALS) return { problem: `At most ${DECIMALS} decimal places.` }
  const amount = BigInt(match[1]!) * SCALE + BigInt(fraction.padEnd(DECIMALS, "0"))
  if (amount === 0n) return { problem: "An amount must be more than zero." }
  if (amount > MAX_AMOUNT) return { problem: "An amount must be at most 1,000,000,000." }
  return { amount }
}

/** Units as "1,234.50": grouped, the fraction without trailing zeros beyond two places. */
export const formatAmount = (units: bigint): string => {
  const whole = (units / SCALE).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  const fraction = (units % SCALE).toString().padStart(DECIMALS, "0").replace(/0+$/, "").padEnd(2, "0")
  return `${whole}.${fraction}`
}

/** Units as the plain decimal an input shows for editing ("1234.5"). */
export const editableAmount = (units: bigint): string => formatAmount(units).replace(/,/g, "").replace(/\.00$/, "")
