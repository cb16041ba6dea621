const SCALE = 10_000_000n

/** Stroops (1e-7) as a decimal string with exactly 7 places. */
export const formatStroops = (stroops: bigint): string => {
  const sign = stroops < 0n ? "-" : ""
  const abs = stroops < 0n ? -stroops : stroops
  return `${sign}${abs / SCALE}.${(abs % SCALE).toString().padStart(7, "0")}`
}

/** A positive decimal with at most 7 places as stroops; undefined when it is not one. */
export const parseStroops = (amount: string): bigint | undefined => {
  const match = /^(\d{1,12})(?:\.(\d{1,7}))?$/.exec(amount.trim())
  if (match === null) return undefined
  const value = BigInt(match[1]!) * SCALE + BigInt((match[2] ?? "").padEnd(7, "0"))
  return value > 0n ? value : undefined
}
