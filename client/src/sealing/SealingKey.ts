// A member's sealing key pair (issue 31 §1), re-derived from their wallet on any device:
//
//   message = "confidential-payroll/sealing-key/v1" ‖ "\n" ‖ organizationId ‖ "\n" ‖ account
//     - the label names the purpose and version, so this signature is never one the wallet gives for anything else
//       (a sign-in challenge, the confidential token's root "openzeppelin/confidential-token/v1/sk …"), and a v2 gives
//       new keys;
//     - organizationId gives a member of two organizations two unrelated keys: one organization's readers learn nothing
//       that opens the other's envelopes, and the two published public keys cannot be linked;
//     - account binds the key to the wallet address the member signs in with (the signature is verified against it).
//   σ    = SEP-53 signMessage(message), asked twice: both answers must agree (ed25519 is deterministic; a signer that is
//          not would give a key no other device reproduces) and verify under the account's ed25519 key;
//   ikm  = HKDF-SHA-256(IKM = σ, salt = "confidential-payroll/sealing-key/v1", info = "x25519 ikm", 32 bytes);
//   (sk, pk) = DeriveKeyPair(ikm), RFC 9180 §7.1.3 for DHKEM(X25519, HKDF-SHA256), as @hpke/core implements it.
//
// The private key is then held as a non-extractable WebCrypto key: it can open, never be exported or printed.
import { hkdf } from "@noble/hashes/hkdf.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { type MessageSigner, withSignerRoot } from "../confidential/crypto/KeyDerivation.ts"
import { fromBase64Url, toBase64Url } from "./Base64Url.ts"
import { SealingInputInvalid } from "./Errors.ts"
import { hpkeSuite, PUBLIC_KEY_BYTES, utf8 } from "./Suite.ts"

export const SEALING_KEY_LABEL = "confidential-payroll/sealing-key/v1"
const IKM_INFO = "x25519 ikm"

/** The SEP-53 message a member signs for their sealing key in one organization. */
export const sealingKeyMessage = (organizationId: string, account: string): string => {
  if (organizationId.length === 0 || /[\n\r]/.test(organizationId)) {
    throw new SealingInputInvalid({ reason: "IdentifierInvalid", message: "the organization id is empty or spans lines" })
  }
  return `${SEALING_KEY_LABEL}\n${organizationId}\n${account}`
}

/** A WebCrypto key, typed without the DOM lib or a node:* import. */
export type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

/** A WebCrypto X25519 key pair (the DOM's CryptoKeyPair, which @types/node does not declare globally). */
export interface X25519KeyPair {
  readonly publicKey: WebCryptoKey
  readonly privateKey: WebCryptoKey
}

/** A member's sealing key pair: the public key to publish, the private key usable only in this memory. */
export class SealingKeyPair {
  /** The X25519 public key, 32 bytes as unpadded base64url (43 characters): what `PUT /me/sealing-key` publishes. */
  readonly publicKey: string
  /** For HPKE's open: the private key is non-extractable. */
  readonly cryptoKeyPair: X25519KeyPair

  private constructor(publicKey: string, cryptoKeyPair: X25519KeyPair) {
    this.publicKey = publicKey
    this.cryptoKeyPair = cryptoKeyPair
  }

  /** RFC 9180 DeriveKeyPair(ikm), the private key re-imported non-extractable. */
  static async fromIkm(ikm: Uint8Array): Promise<SealingKeyPair> {
    const kem = hpkeSuite().kem
    const derived = await kem.deriveKeyPair(ikm)
    const publicRaw = new Uint8Array(await kem.serializePublicKey(derived.publicKey))
    const jwk = await crypto.subtle.exportKey("jwk", derived.privateKey)
    const privateKey = await crypto.subtle.importKey("jwk", jwk, { name: "X25519" }, false, ["deriveBits"])
    delete jwk.d
    return new SealingKeyPair(toBase64Url(publicRaw), { publicKey: derived.publicKey, privateKey })
  }

  toJSON() {
    return { publicKey: this.publicKey, privateKey: "<redacted>" }
  }

  toString() {
    return `SealingKeyPair ${JSON.stringify(this.toJSON())}`
  }

  // node:util's inspect hook, named through the symbol registry so nothing here imports node:.
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return this.toString()
  }
}

/** The 32 bytes of a published sealing key, or a typed error. */
export const sealingKeyBytes = (publicKey: string): Uint8Array => {
  const bytes = fromBase64Url(publicKey)
  if (bytes === undefined || bytes.length !== PUBLIC_KEY_BYTES) {
    throw new SealingInputInvalid({ reason: "SealingKeyInvalid", message: "a sealing key is 32 bytes of base64url" })
  }
  return bytes
}

export interface SealingKeyOptions {
  readonly organizationId: string
  /** The member's account (G…), which signs unless `signerKey` names another ed25519 key. */
  readonly account: string
  readonly signer: MessageSigner
  readonly signerKey?: string
  readonly networkPassphrase?: string
  /** The member's key as published before (PUT /me/sealing-key): reproducing it needs one signature, not two. */
  readonly published?: string
}

/** Signs the sealing-key message (twice, compared and verified: KeyDerivation.ts's withSignerRoot) and derives the pair. */
export const deriveSealingKey = async (options: SealingKeyOptions): Promise<SealingKeyPair> =>
  await withSignerRoot(
    {
      signer: options.signer,
      signerKey: options.signerKey ?? options.account,
      networkPassphrase: options.networkPassphrase,
      what: "a sealing key",
      reproduces: options.published === undefined ? undefined : (keyPair) => keyPair.publicKey === options.published
    },
    sealingKeyMessage(options.organizationId, options.account),
    async (signature) => {
      const ikm = hkdf(sha256, signature, utf8(SEALING_KEY_LABEL), utf8(IKM_INFO), 32)
      try {
        return await SealingKeyPair.fromIkm(ikm)
      } finally {
        ikm.fill(0)
      }
    }
  )
