import { type FeeBumpTransaction, Keypair, StrKey, Transaction, xdr } from "@stellar/stellar-sdk"
import { Either } from "effect"
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign as cryptoSign, verify as cryptoVerify } from "node:crypto"
import { InvalidRequest } from "../Domain/Errors.ts"

type AnyTransaction = Transaction | FeeBumpTransaction

const raws = new WeakMap<AnyTransaction, xdr.Transaction | xdr.FeeBumpTransaction>()

/**
 * Keeps the XDR a transaction was decoded from or built of. The SDK's `tx` getter returns a fresh deep copy (an XDR
 * encode and decode of the whole ~32 KB transaction) on every read, and its `hash()` and `toXdr()` read it; the hash
 * and the envelope here are made from the kept XDR instead, which nothing changes once the transaction is made.
 */
export const keepXdr = (tx: AnyTransaction, raw: xdr.Transaction | xdr.FeeBumpTransaction): void => {
  raws.set(tx, raw)
}

const rawOf = (tx: AnyTransaction) => raws.get(tx) ?? tx.tx

const networkIds = new Map<string, xdr.Hash>()
const networkId = (passphrase: string) => {
  let id = networkIds.get(passphrase)
  if (id === undefined) {
    id = xdr.Hash.fromXDR(createHash("sha256").update(passphrase).digest())
    networkIds.set(passphrase, id)
  }
  return id
}

/** What a signature signs: the SDK's `signatureBase()`, from the kept XDR (v0 envelopes: the SDK's own). */
const signatureBase = (tx: AnyTransaction): Uint8Array => {
  const raw = rawOf(tx)
  const tagged = raw instanceof xdr.FeeBumpTransaction
    ? xdr.TransactionSignaturePayloadTaggedTransaction.envelopeTypeTxFeeBump(raw)
    : raw instanceof xdr.Transaction
    ? xdr.TransactionSignaturePayloadTaggedTransaction.envelopeTypeTx(raw)
    : undefined
  if (tagged === undefined) return tx.signatureBase()
  return new xdr.TransactionSignaturePayload({ networkId: networkId(tx.networkPassphrase), taggedTransaction: tagged }).toXDR()
}

const hashes = new WeakMap<AnyTransaction, Buffer>()

/**
 * The transaction's hash for its network (what signatures sign and `getTransaction` looks up), computed once per
 * transaction with node:crypto: the SDK's `hash()` copies, re-serializes and hashes in JavaScript on every call.
 */
export const txHash = (tx: AnyTransaction): Buffer => {
  let hash = hashes.get(tx)
  if (hash === undefined) {
    hash = createHash("sha256").update(signatureBase(tx)).digest()
    hashes.set(tx, hash)
  }
  return hash
}

/** `txHash` as lower-case hex, the form the service stores and answers with. */
export const txHashHex = (tx: AnyTransaction): string => txHash(tx).toString("hex")

const envelopes = new WeakMap<FeeBumpTransaction, string>()

/**
 * The fee-bump envelope as base64 XDR, encoded once (the transaction and its signatures, as the SDK's
 * `toEnvelope()` builds it), from the kept XDR and with Node's base64: the SDK's `toXdr()` copies the transaction
 * twice and base64-encodes in JavaScript.
 */
export const envelopeXdr = (tx: FeeBumpTransaction): string => {
  let encoded = envelopes.get(tx)
  if (encoded === undefined) {
    const raw = rawOf(tx)
    if (!(raw instanceof xdr.FeeBumpTransaction)) throw new Error("not a fee-bump transaction")
    const envelope = xdr.TransactionEnvelope.envelopeTypeTxFeeBump(new xdr.FeeBumpTransactionEnvelope({ tx: raw, signatures: tx.signatures }))
    encoded = Buffer.from(envelope.toXDR()).toString("base64")
    envelopes.set(tx, encoded)
  }
  return encoded
}

/** The inner transaction's XDR as kept (or, for one not decoded here, the SDK's copy): never changed. */
export const innerXdr = (tx: Transaction): xdr.Transaction | undefined => {
  const raw = rawOf(tx)
  return raw instanceof xdr.Transaction ? raw : undefined
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
    // Node's base64 decoder: the SDK's own is JavaScript, a large share of decoding a ~43 K-character envelope.
    envelope = xdr.TransactionEnvelope.fromXdr(Buffer.from(signedXDR, "base64"))
  } catch {
    return invalid("signedXDR is not a base64 transaction envelope")
  }
  if (envelope.type === "envelopeTypeTxFeeBump") return invalid("fee-bump envelopes are not accepted: send the inner transaction")
  if (envelope.type !== "envelopeTypeTx") return invalid("signedXDR must be a v1 transaction envelope")
  let tx: Transaction
  try {
    tx = new Transaction(envelope, networkPassphrase)
    keepXdr(tx, envelope.v1.tx)
    txHash(tx)
  } catch {
    return invalid("signedXDR holds a transaction the service cannot read")
  }
  if (tx.operations.length !== 1) return invalid("the transaction must have exactly one operation")
  return Either.right(tx)
}

/** Public keys as node:crypto key objects, kept for the accounts seen lately (a key object is costly to make). */
const publicKeys = new Map<string, KeyObject>()
const PUBLIC_KEYS_KEPT = 4_096

const publicKeyOf = (publicKey: Uint8Array): KeyObject => {
  const x = Buffer.from(publicKey).toString("base64url")
  let key = publicKeys.get(x)
  if (key === undefined) {
    key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })
    if (publicKeys.size >= PUBLIC_KEYS_KEPT) publicKeys.delete(publicKeys.keys().next().value ?? x)
    publicKeys.set(x, key)
  }
  return key
}

/** Ed25519 through node:crypto: an order of magnitude faster than the SDK's JavaScript implementation. */
const verifyEd25519 = (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => {
  try {
    return cryptoVerify(null, data, publicKeyOf(publicKey), signature)
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
