/**
 * What the console's answers carry, besides what every answer carries (src/Http/SecurityHeaders.ts): a strict
 * Content-Security-Policy (only this origin's own files: no inline script or style element, no third-party origin,
 * fonts and icons bundled), no referrer (an invite link's token stays out of other sites' logs), no framing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin"
}

/** Hashed file names change with their content: a year, never revalidated. */
export const ASSET_CACHE = "public, max-age=31536000, immutable"

/** `index.html` names the current hashed files: asked again every time (a deploy shows at once). */
export const INDEX_CACHE = "no-cache"
