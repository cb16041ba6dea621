import { type FeeBumpTransaction, Keypair, StrKey, Transaction, xdr } from "@stellar/stellar-sdk"
import { Either } from "effect"
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign as cryptoSign, verify as cryptoVerify } from "node:crypto"
import { Forbidden, InvalidRequest } from "../Domain/Errors.ts"

const hashes = new WeakMap<Transaction | FeeBumpTransaction, Buffer>()

/**
 * The transaction's hash for its network (what signatures sign and `getTransaction` looks up), computed once per
 * decoded transaction: hashing a ~32 KB envelope is a large share of a request's work, and the SDK's `hash()`
 * re-serializes and hashes in JavaScript on every call. SHA-256 of `signatureBase()` is the SDK's own definition.
 */
export const txHash = (tx: Transaction | FeeBumpTransaction): Buffer => {
  let hash = hashes.get(tx)
  if (hash === undefined) {
    hash = createHash("sha256").update(tx.signatureBase()).digest()
    hashes.set(tx, hash)
  }
  return hash
}

/** `txHash` as lower-case hex, the form the service stores and answers with. */
export const txHashHex = (tx: Transaction | FeeBumpTransaction): string => txHash(tx).toString("hex")

const envelopes = new WeakMap<FeeBumpTransaction, string>()

/**
 * The fee-bump envelope as base64 XDR, encoded once. The SDK's `toXDR()` copies the whole transaction through an
 * XDR round trip and then base64-encodes in JavaScript; this encodes the same envelope (the transaction and its
 * signatures, as `toEnvelope()` builds it) once, with Node's base64.
 */
export const envelopeXdr = (tx: FeeBumpTransaction): string => {
  let encoded = envelopes.get(tx)
  if (encoded === undefined) {
    const envelope = xdr.TransactionEnvelope.envelopeTypeTxFeeBump(
      new xdr.FeeBumpTransactionEnvelope({ tx: tx.tx, signatures: tx.signatures })
    )
    encoded = Buffer.from(envelope.toXDR()).toString("base64")
    envelopes.set(tx, encoded)
  }
  return encoded
}

/** An ed25519 signing key for node:crypto from a Stellar keypair (its 32-byte seed). */
export const signingKey = (keypair: Keypair): KeyObject =>
  createPrivateKey({
    key: {
      kty: "OKP",
      crv: "Ed25519",
      d: Buffer.from(keypair.rawSecretKey()).toString("base64url"),
      x: Buffer.from(keypair.rawPublicKey()).toString("base64url")
    },
    format: "jwk"
  })

/** Signs `tx` (its `txHash`) with `keypair` through node:crypto, as the SDK's `tx.sign(keypair)` does. */
export const signWith = (tx: Transaction | FeeBumpTransaction, keypair: Keypair, key: KeyObject): void => {
  const signature = cryptoSign(null, txHash(tx), key)
  tx.signatures.push(new xdr.DecoratedSignature({ hint: keypair.signatureHint(), signature }))
}

const invalid = (error: string) => Either.left(new InvalidRequest({ error }))

/**
 * A base64 v1 transaction envelope for this network, with at most (and at least) one operation. Every SDK call
 * that reads it runs here, under one catch: the SDK throws on envelopes the XDR allows but it cannot represent
 * (a `revokeSponsorship` of a contract-data, contract-code, TTL or config-setting key; an asset code of NULs;
 * nesting too deep to recurse into), and such an envelope is a bad request, never a defect.
 */
export const decodeInner = (signedXDR: string, networkPassphrase: string): Either.Either<Transaction, InvalidRequest> => {
  let envelope: xdr.TransactionEnvelope
  try {
    envelope = xdr.TransactionEnvelope.fromXdr(signedXDR, "base64")
  } catch {
    return invalid("signedXDR is not a base64 transaction envelope")
  }
  if (envelope.type === "envelopeTypeTxFeeBump") return invalid("fee-bump envelopes are not accepted: send the inner transaction")
  if (envelope.type !== "envelopeTypeTx") return invalid("signedXDR must be a v1 transaction envelope")
  let tx: Transaction
  try {
    tx = new Transaction(envelope, networkPassphrase)
    txHash(tx)
  } catch {
    return invalid("signedXDR holds a transaction the service cannot read")
  }
  if (tx.operations.length !== 1) return invalid("the transaction must have exactly one operation")
  return Either.right(tx)
}

/** Ed25519 through node:crypto: an order of magnitude faster than the SDK's JavaScript implementation. */
const verifyEd25519 = (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => {
  try {
    return cryptoVerify(
      null,
      data,
      createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" }),
      signature
    )
  } catch {
    return false
  }
}

/** Keys whose valid signature over this network's hash the envelope carries. */
export const validSigners = (tx: Transaction, candidates: ReadonlyArray<string>): ReadonlyArray<string> => {
  const hash = txHash(tx)
  return candidates.filter(StrKey.isValidEd25519PublicKey).filter((key) => {
    const raw = StrKey.decodeEd25519PublicKey(key)
    const hint = Buffer.from(Keypair.fromPublicKey(key).signatureHint())
    return tx.signatures.some((sig) =>
      Buffer.from(sig.hint.toBytes()).equals(hint) && verifyEd25519(raw, hash, sig.signature.toBytes())
    )
  })
}

/**
 * The transaction and every operation must be sourced by the signed-in account (for a batch run: by one of the
 * organization's wallet members).
 */
export const checkSources = (tx: Transaction, allowed: ReadonlySet<string>): Either.Either<void, Forbidden> => {
  const who = allowed.size === 1 ? "the signed-in account" : "an account of the organization"
  if (!allowed.has(tx.source)) {
    return Either.left(new Forbidden({ error: `the transaction's source account must be ${who}` }))
  }
  if (tx.operations.some((op) => op.source !== undefined && op.source !== tx.source)) {
    return Either.left(new Forbidden({ error: `every operation's source account must be ${who}` }))
  }
  return Either.right(undefined)
}
