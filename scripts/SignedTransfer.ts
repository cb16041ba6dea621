import { Account, Address, Contract, type Keypair, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { sourceAuthorization, transferData } from "../test/support/ConfidentialData.ts"

/**
 * A `confidential_transfer(from, to, data)` signed by the employer's wallet, as its client builds it: `data` is a
 * real-size `TransferData` (a 14,592-byte stand-in proof, the real size) and the operation carries the source account's authorization
 * entry simulation would record, so the envelope is about 32 KB of XDR, like a real one.
 */
export const signedTransfer = (options: {
  readonly wallet: Keypair
  readonly to: string
  readonly token: string
  /** The account's sequence number before this transaction (the transaction uses the next one). */
  readonly sequence: bigint
  readonly passphrase: string
  readonly validForSeconds: number
}) => {
  const fn = "confidential_transfer"
  const args = [
    Address.fromString(options.wallet.publicKey()).toScVal(),
    Address.fromString(options.to).toScVal(),
    xdr.ScVal.scvBytes(transferData())
  ]
  const call = new Contract(options.token).call(fn, ...args)
  if (call.body.type !== "invokeHostFunction") throw new Error("a contract call is an invokeHostFunction operation")
  const invoke = new xdr.InvokeHostFunctionOp({
    hostFunction: call.body.invokeHostFunctionOp.hostFunction,
    auth: [sourceAuthorization(options.token, fn, args)]
  })
  const tx = new TransactionBuilder(new Account(options.wallet.publicKey(), options.sequence.toString()), {
    fee: "1001",
    networkPassphrase: options.passphrase
  })
    .addOperation(new xdr.Operation({ sourceAccount: call.sourceAccount, body: xdr.OperationBody.invokeHostFunction(invoke) }))
    .setTimeout(options.validForSeconds)
    .build()
  tx.sign(options.wallet)
  return tx.toXDR()
}
