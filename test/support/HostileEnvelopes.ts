import { Account, Contract, hash, Keypair, Networks, Operation, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { CONFIDENTIAL_TOKEN } from "./TestApp.ts"

/** ENVELOPE_TYPE_TX as the 4 bytes of an XDR enum. */
const ENVELOPE_TYPE_TX = Buffer.from([0, 0, 0, 2])

/**
 * Signs a v1 envelope's transaction at the XDR level (what `Transaction#sign` does, without building a
 * `Transaction`, which the SDK refuses for the envelopes below) and returns the envelope as base64.
 */
export const signEnvelope = (envelope: xdr.TransactionEnvelope, signer: Keypair, passphrase: string = Networks.TESTNET) => {
  if (envelope.type !== "envelopeTypeTx") throw new Error("v1 envelopes only")
  const payload = Buffer.concat([hash(Buffer.from(passphrase)), ENVELOPE_TYPE_TX, Buffer.from(envelope.v1.tx.toXDR())])
  const signature = new xdr.DecoratedSignature({ hint: signer.signatureHint(), signature: signer.sign(hash(payload)) })
  const signatures = [...envelope.v1.signatures, signature]
  return xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: envelope.v1.tx, signatures })).toXDR("base64")
}

/** A one-operation envelope of `wallet` with `body` as its operation, validly signed, without the SDK's checks. */
export const envelopeWith = (wallet: Keypair, body: xdr.OperationBody, sequence = "1") => {
  const template = new TransactionBuilder(new Account(wallet.publicKey(), sequence), { fee: "1000", networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .setTimeout(60)
    .build()
    .toEnvelope()
  if (template.type !== "envelopeTypeTx") throw new Error("v1 envelopes only")
  const tx = template.v1.tx
  const withOp = new xdr.Transaction({ ...tx, operations: [new xdr.Operation({ sourceAccount: null, body })] } as never)
  return signEnvelope(xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: withOp, signatures: [] })), wallet)
}

const revokeEntry = (key: xdr.LedgerKey) =>
  xdr.OperationBody.revokeSponsorship(xdr.RevokeSponsorshipOp.revokeSponsorshipLedgerEntry(key))

/**
 * Validly signed envelopes that the XDR allows but `@stellar/stellar-sdk` cannot turn into a `Transaction` (it
 * throws): `revokeSponsorship` of ledger-key kinds it does not know, and a payment whose asset code is all NULs.
 */
export const unreadableEnvelopes = (wallet: Keypair): ReadonlyArray<{ readonly name: string; readonly signedXDR: string }> => {
  const contract = new Contract(CONFIDENTIAL_TOKEN).address().toScAddress()
  const nulAsset = xdr.Asset.assetTypeCreditAlphanum4(new xdr.AlphaNum4({ assetCode: Buffer.alloc(4), issuer: wallet.xdrAccountId() }))
  const bodies: Array<[string, xdr.OperationBody]> = [
    ["revokeSponsorship(contractData)", revokeEntry(xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({
      contract,
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent
    })))],
    ["revokeSponsorship(contractCode)", revokeEntry(xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: Buffer.alloc(32, 1) })))],
    ["revokeSponsorship(ttl)", revokeEntry(xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: Buffer.alloc(32, 2) })))],
    ["revokeSponsorship(configSetting)", revokeEntry(xdr.LedgerKey.configSetting(new xdr.LedgerKeyConfigSetting({
      configSettingId: xdr.ConfigSettingId.configSettingContractMaxSizeBytes
    })))],
    ["payment of asset code \\0\\0\\0\\0", xdr.OperationBody.payment(new xdr.PaymentOp({
      destination: wallet.xdrMuxedAccount(),
      asset: nulAsset,
      amount: 10_000_000n
    } as never))]
  ]
  return bodies.map(([name, body]) => ({ name, signedXDR: envelopeWith(wallet, body) }))
}
