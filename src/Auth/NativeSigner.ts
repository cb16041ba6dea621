import { type Keypair, type Transaction, xdr } from "@stellar/stellar-sdk"
import { createPrivateKey, sign } from "node:crypto"

/** The PKCS #8 prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex")

/**
 * Signs transactions as `keypair.sign` would, through OpenSSL: @stellar/stellar-sdk 17 signs in JavaScript
 * (@noble/ed25519), about ten times the CPU, and every SEP-10 challenge is signed. Ed25519 signatures are
 * deterministic, so the bytes are the same (test/unit/native-signer.test.ts).
 */
export const nativeSigner = (keypair: Keypair) => {
  const der = Buffer.concat([PKCS8_ED25519, keypair.rawSecretKey()])
  const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" })
  der.fill(0)
  const hint = keypair.signatureHint()
  return (tx: Transaction): void => {
    tx.signatures.push(new xdr.DecoratedSignature({ hint, signature: sign(null, tx.hash(), key) }))
  }
}
