import { Account, Address, Contract, Keypair, Networks, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { call, signIn } from "./Client.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"

export interface InnerOptions {
  readonly fee?: number
  readonly contract?: string
  readonly fn?: string
  readonly to?: string
  readonly validFor?: number | null
  readonly sequence?: bigint
  readonly passphrase?: string
  readonly operation?: xdr.Operation
  readonly operations?: number
  readonly opSource?: string
  readonly signer?: Keypair
}

/**
 * A `confidential_transfer(from, to, proof)` call signed by the employer's wallet, as its client builds it.
 * The proof is opaque bytes here: the service never looks inside.
 */
export const innerTransfer = (app: TestAppShape, wallet: Keypair, options: InnerOptions = {}) => {
  const sequence = options.sequence ?? app.rpc.account(wallet.publicKey())?.sequence ?? 0n
  const now = Math.floor(Date.now() / 1000)
  const builder = new TransactionBuilder(new Account(wallet.publicKey(), sequence.toString()), {
    fee: String(options.fee ?? 1001),
    networkPassphrase: options.passphrase ?? Networks.TESTNET,
    ...(options.validFor === null || options.validFor === undefined ? {} : { timebounds: { minTime: 0, maxTime: now + options.validFor } })
  })
  const op = options.operation ?? new Contract(options.contract ?? CONFIDENTIAL_TOKEN).call(
    options.fn ?? "confidential_transfer",
    Address.fromString(wallet.publicKey()).toScVal(),
    Address.fromString(options.to ?? Keypair.random().publicKey()).toScVal(),
    xdr.ScVal.scvBytes(randomBytes(64))
  )
  for (let i = 0; i < (options.operations ?? 1); i++) {
    builder.addOperation(options.opSource === undefined ? op : withSource(op, options.opSource))
  }
  if (options.validFor === undefined) builder.setTimeout(60)
  if (options.validFor === null) builder.setTimeout(0)
  const tx = builder.build()
  tx.sign(options.signer ?? wallet)
  return tx.toXDR()
}

const withSource = (op: xdr.Operation, source: string) =>
  new xdr.Operation({ sourceAccount: Keypair.fromPublicKey(source).xdrMuxedAccount(), body: op.body })

/** An employer whose wallet exists on the loopback ledger. */
export const walletEmployer = (app: TestAppShape, name = "Payroll Co") =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    app.rpc.setAccount({ id: wallet.publicKey() })
    const token = yield* signIn(app, wallet)
    const org = yield* call(app, "POST", "/orgs", { token, json: { name } })
    if (org.status !== 200) throw new Error(JSON.stringify(org.body))
    return { wallet, token }
  })

export const postTransfer = (app: TestAppShape, token: string, signedXDR: string, url = app.url) =>
  call({ ...app, url }, "POST", "/transfer", { token, json: { signedXDR } })
