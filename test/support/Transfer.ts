import { Account, Address, Contract, Keypair, Networks, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { CreateOrg } from "../../src/Domain/Session.ts"
import { api } from "./Api.ts"
import { call, signIn } from "./Client.ts"
import { sourceAuthorization, transferData } from "./ConfidentialData.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"

export interface InnerOptions {
  readonly fee?: number
  readonly contract?: string
  readonly fn?: string
  readonly to?: string
  /** The call's arguments; default `(from = the wallet, to, data = a real-size TransferData)`. */
  readonly args?: ReadonlyArray<xdr.ScVal>
  /**
   * Authorization entries of the operation. Default: the one a real client gets from simulation, the source account's
   * own authorization of this call (`from.require_auth()` needs it even when `from` is the transaction's source).
   */
  readonly auth?: ReadonlyArray<xdr.SorobanAuthorizationEntry>
  readonly validFor?: number | null
  readonly sequence?: bigint
  readonly passphrase?: string
  readonly operation?: xdr.Operation
  readonly operations?: number
  readonly opSource?: string
  readonly signer?: Keypair
  /** Register sender and recipient with the emulated confidential token first (default true), as real payees are. */
  readonly register?: boolean
}

/**
 * A `confidential_transfer(from, to, data)` call signed by the employer's wallet, as its client builds it: `data`
 * is a real-size `TransferData` (a 14,592-byte stand-in proof), so the envelope is about 31 KB of XDR. The suites that
 * use it are about the service (the sponsor's rules, faults, batches, the archive), not the proof: their loopback token
 * takes any well-formed proof. Paying with proofs the token verifies is test/confidential-client.test.ts and the demo.
 */
export const innerTransfer = (app: Pick<TestAppShape, "rpc">, wallet: Keypair, options: InnerOptions = {}) => {
  const sequence = options.sequence ?? app.rpc.account(wallet.publicKey())?.sequence ?? 0n
  const to = options.to ?? Keypair.random().publicKey()
  const contract = options.contract ?? CONFIDENTIAL_TOKEN
  if (options.register !== false) {
    for (const address of [wallet.publicKey(), to]) {
      if (app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, address) === undefined) {
        app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address)
      }
    }
  }
  const now = Math.floor(Date.now() / 1000)
  const builder = new TransactionBuilder(new Account(wallet.publicKey(), sequence.toString()), {
    fee: String(options.fee ?? 1001),
    networkPassphrase: options.passphrase ?? Networks.TESTNET,
    ...(options.validFor === null || options.validFor === undefined ? {} : { timebounds: { minTime: 0, maxTime: now + options.validFor } })
  })
  const args = options.args ?? [
    Address.fromString(wallet.publicKey()).toScVal(),
    Address.fromString(to).toScVal(),
    xdr.ScVal.scvBytes(transferData())
  ]
  const fn = options.fn ?? "confidential_transfer"
  const op = options.operation ?? withAuth(new Contract(contract).call(fn, ...args), options.auth ?? [sourceAuthorization(contract, fn, args)])
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

const withAuth = (op: xdr.Operation, auth: ReadonlyArray<xdr.SorobanAuthorizationEntry>) => {
  if (op.body.type !== "invokeHostFunction") return op
  const invoke = new xdr.InvokeHostFunctionOp({ hostFunction: op.body.invokeHostFunctionOp.hostFunction, auth: [...auth] })
  return new xdr.Operation({ sourceAccount: op.sourceAccount, body: xdr.OperationBody.invokeHostFunction(invoke) })
}

/** An employer whose wallet exists on the loopback ledger (typed client). */
export const walletEmployer = (app: Pick<TestAppShape, "url" | "rpc">, name = "Payroll Co") =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    app.rpc.setAccount({ id: wallet.publicKey() })
    const token = yield* signIn(app, wallet)
    const client = yield* api(app, token)
    yield* client.account.createOrg({ payload: new CreateOrg({ name }) }).pipe(Effect.orDie)
    return { wallet, token }
  })

export const postTransfer = (app: Pick<TestAppShape, "url">, token: string, signedXDR: string, url = app.url) =>
  call({ ...app, url }, "POST", "/transfer", { token, json: { signedXDR } })
