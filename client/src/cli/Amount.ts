const DECIMALS = 7

/** An amount in USDC ("12", "12.5", up to 7 decimals) in the token's units; undefined when it is not one. */
export const parseUsdc = (text: string): bigint | undefined => {
  const match = /^(\d{1,12})(?:\.(\d{1,7}))?$/.exec(text.trim())
  if (match === null) return undefined
  return BigInt(match[1]!) * 10n ** BigInt(DECIMALS) + BigInt((match[2] ?? "").padEnd(DECIMALS, "0"))
}
