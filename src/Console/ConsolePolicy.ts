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

/**
 * Cross-origin isolation: the page and its workers in a process of their own, where bb (the prover) may share memory
 * between its threads. Everything the console loads is its own origin's, so requiring CORP costs nothing.
 */
const ISOLATION = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-embedder-policy": "require-corp",
  "cross-origin-resource-policy": "same-origin"
}

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  ...ISOLATION
}

/**
 * The prover's files (/app/prover/): a dedicated worker runs under the policy delivered with its own script, not the
 * page's, and bb.js and noir_js compile WebAssembly, which `script-src` forbids without 'wasm-unsafe-eval'. So the
 * worker scripts' policy is the page's plus that one source expression (no 'unsafe-eval', no other origin); the
 * page's own policy is unchanged and never allows compiling wasm.
 */
export const PROVER_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")

export const PROVER_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": PROVER_CONTENT_SECURITY_POLICY,
  "referrer-policy": "no-referrer",
  ...ISOLATION
}

/** Hashed file names change with their content: a year, never revalidated. */
export const ASSET_CACHE = "public, max-age=31536000, immutable"

/** `index.html` names the current hashed files: asked again every time (a deploy shows at once). */
export const INDEX_CACHE = "no-cache"

/**
 * The prover's files whose names do not change with their content (the worker's entry, bb's worker scripts and wasm,
 * the circuits): asked again every time, answered 304 by ETag while unchanged.
 */
export const REVALIDATED_CACHE = "no-cache"
