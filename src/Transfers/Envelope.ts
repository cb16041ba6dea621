import { Keypair, StrKey, Transaction, xdr } from "@stellar/stellar-sdk"
import { Either } from "effect"
import { createPublicKey, verify as cryptoVerify } from "node:crypto"
import { Forbidden, InvalidRequest } from "../Domain/Errors.ts"

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
    tx.hash()
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
  const hash = tx.hash()
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
