const REDACTED = "[REDACTED]"

/** Annotation and attribute keys whose values are never written out. */
const SECRET_KEY = /token|secret|password|passphrase|authorization|cookie|seed|api[-_]?key|private/i

const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // Stellar secret seeds (S + 55 base32 characters).
  [/\bS[A-Z2-7]{55}\b/g, REDACTED],
  // JWTs: session tokens, Privy access and identity tokens.
  [/\beyJ[\w-]*\.[\w-]+\.[\w-]*/g, REDACTED],
  [/\b(bearer|basic)\s+[\w.~+/=-]+/gi, `$1 ${REDACTED}`],
  // API keys (`cpk_` and 43 base64url characters), also when they appear bare.
  [/\bcpk_[\w-]{43}/g, REDACTED],
  // Invite tokens travel in paths and in `GET /me?invite=`.
  [/(\/invites\/|\/orgs\/join\/)(?!:token\b)[^/\s?#"'\\]+/g, "$1:token"],
  [/([?&](?:invite|token)=)[^&\s#"'\\]+/gi, `$1${REDACTED}`]
]

/**
 * Takes out of a text every configured secret value and anything shaped like a secret (seeds, JWTs, bearer
 * credentials, invite tokens in URLs). A safety net under code that already never logs secrets.
 */
export const makeScrubber = (secrets: ReadonlyArray<string>) => {
  const known = secrets.filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length)
  return (text: string): string => {
    let out = text
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement)
    return out
  }
}

export type Scrubber = ReturnType<typeof makeScrubber>

/** A structured value with secret-named keys masked and every string scrubbed. */
export const scrubValue = (value: unknown, scrub: Scrubber, depth = 0): unknown => {
  if (typeof value === "string") return scrub(value)
  if (value === null || typeof value !== "object" || depth > 5) return value
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, scrub, depth + 1))
  const toJSON = (value as { toJSON?: () => unknown }).toJSON
  if (typeof toJSON === "function" && !(value instanceof Date)) return scrubValue(toJSON.call(value), scrub, depth + 1)
  if (value instanceof Date) return value.toISOString()
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? REDACTED : scrubValue(item, scrub, depth + 1)
  return out
}

/** An annotation's value as it may be written: masked when its key names a secret. */
export const scrubField = (key: string, value: unknown, scrub: Scrubber): unknown =>
  SECRET_KEY.test(key) ? REDACTED : scrubValue(value, scrub)

/** A URL or path for a trace or a log: no query string, invite tokens replaced by `:token`. */
export const redactUrl = (url: string, scrub: Scrubber): string => scrub(url.split("?")[0]!)
