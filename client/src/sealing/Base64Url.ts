// base64url (RFC 4648 §5) without padding, as the sealed envelope spells every byte string. Decoding is strict: only
// the canonical spelling of some bytes is accepted, so one value has one text and an altered character never passes
// as the same bytes. WebCrypto-era globals only (btoa/atob), no node:* import: it runs in browsers and Node alike.

const CHUNK = 0x8000

export const toBase64Url = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK))
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** The bytes a canonical unpadded base64url text spells, or undefined when it is not one. */
export const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4)
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0))
  // Non-zero unused bits in the last character would give a second spelling of the same bytes.
  return toBase64Url(bytes) === text ? bytes : undefined
}

/** The length in characters of `n` bytes in unpadded base64url. */
export const base64UrlLength = (n: number): number => Math.ceil((n * 4) / 3)
