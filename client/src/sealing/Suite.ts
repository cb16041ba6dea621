// The one HPKE suite sealing uses (RFC 9180 §7): DHKEM(X25519, HKDF-SHA256) 0x0020, HKDF-SHA256 0x0001,
// ChaCha20-Poly1305 0x0003, all from @hpke/core and @hpke/chacha20poly1305 (X25519 and HKDF through WebCrypto,
// ChaCha20-Poly1305 through the @noble/ciphers copy the latter bundles). The same AEAD seals the document itself
// under the envelope's content key, so the whole envelope rests on one AEAD.
import { Chacha20Poly1305 } from "@hpke/chacha20poly1305"
import { CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "@hpke/core"

/** The envelope's `suite`: KEM/KDF/AEAD, as agreed with the service's shape check. */
export const SUITE_NAME = "X25519-HKDF-SHA256/HKDF-SHA256/ChaCha20Poly1305"

/** Byte lengths of the envelope's parts. */
export const CONTENT_KEY_BYTES = 32
export const NONCE_BYTES = 12
export const ENC_BYTES = 32
export const TAG_BYTES = 16
export const WRAPPED_KEY_BYTES = CONTENT_KEY_BYTES + TAG_BYTES
export const PUBLIC_KEY_BYTES = 32
export const COMMITMENT_BYTES = 32

export const hpkeSuite = (): CipherSuite =>
  new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })

/** ChaCha20-Poly1305 (RFC 8439) under a 32-byte key. */
export const contentAead = (key: Uint8Array) => new Chacha20Poly1305().createEncryptionContext(key)

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

export const randomBytes = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n))
