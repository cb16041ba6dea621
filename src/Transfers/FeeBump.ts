import { FeeBumpTransaction, type Keypair, type Transaction, xdr } from "@stellar/stellar-sdk"
import { envelopeXdr, innerXdr, keepXdr, signingKey, signWith } from "./Envelope.ts"

/**
 * A fee-bump whose envelope is encoded once (`envelopeXdr`), also when the SDK's RPC client serializes it to send
 * it: the SDK's own `toXdr()` copies the ~32 KB transaction through an XDR round trip and base64-encodes it in
 * JavaScript on every call. Made only once it is signed: the encoding is kept.
 */
class SignedFeeBump extends FeeBumpTransaction {
  override toXdr(): string {
    return envelopeXdr(this)
  }
}

/**
 * CAP-15 fee-bump paid and signed by `key`. The outer fee is exactly twice the inner fee, which keeps the outer fee
 * rate (fee / (ops + 1)) equal to the inner one for a one-operation transaction; the SDK's `buildFeeBumpTransaction`
 * derives the fee from a base fee instead, so the envelope is built here.
 */
export const feeBumpWith = (key: Keypair, networkPassphrase: string) => {
  const signer = signingKey(key)
  const feeSource = key.xdrMuxedAccount()
  return (inner: Transaction): FeeBumpTransaction => {
    const innerTx = innerXdr(inner)
    if (innerTx === undefined) throw new Error("the inner transaction must be a v1 envelope")
    // The inner transaction's own XDR objects go in as they are (the SDK's toEnvelope() would copy them through an
    // XDR round trip first); neither is changed afterwards.
    const raw = new xdr.FeeBumpTransaction({
      feeSource,
      fee: 2n * BigInt(inner.fee),
      innerTx: xdr.FeeBumpTransactionInnerTx.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: innerTx, signatures: inner.signatures })),
      ext: xdr.FeeBumpTransactionExt.v0()
    })
    const outer = xdr.TransactionEnvelope.envelopeTypeTxFeeBump(new xdr.FeeBumpTransactionEnvelope({ tx: raw, signatures: [] }))
    const tx = new SignedFeeBump(outer, networkPassphrase)
    keepXdr(tx, raw)
    signWith(tx, key, signer)
    return tx
  }
}
