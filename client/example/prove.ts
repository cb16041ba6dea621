// A confidential account registered through the installed package alone: keys from the wallet's signature (SEP-53,
// SDK.md §5.2), `register` proven with the circuits and the CRS (Aztec Ignition's) the package carries, the call built,
// simulated, signed and sent through Stellar RPC, and the wallet's balances then checked against the chain.
// test/client-package.test.ts installs the package in an empty project and runs this file there; the wallet's
// secret, the RPC and the token's deployment come in a JSON file named by the first argument.
import {
  ChainReader,
  FileStore,
  Keypair,
  keysFromSigner,
  type MessageSigner,
  openProvingSetup,
  openWallet,
  packagedCircuitsDir,
  prepareCall,
  rpc,
  type TokenDeployment
} from "@confidential-payroll/client/confidential/node"
import { Effect } from "effect"
import { readFileSync } from "node:fs"

interface Input {
  readonly rpcUrl: string
  readonly deployment: TokenDeployment
  /** Where the wallet keeps its sealed state. */
  readonly stateDir: string
  /** The wallet's secret seed (S...): it signs the root message and the transaction. */
  readonly secret: string
}
const input = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Input
const { deployment } = input

/** What a Freighter-style wallet answers to signMessage, played here by the account's own key. */
const key = Keypair.fromSecret(input.secret)
const account = key.publicKey()
const signer: MessageSigner = {
  signMessage: async (message) => ({ signedMessage: Buffer.from(key.signMessage(message)).toString("base64"), signerAddress: account })
}

const program = Effect.gen(function*() {
  const server = new rpc.Server(input.rpcUrl, { allowHttp: true })
  const reader = new ChainReader(server, deployment)
  const keys = yield* Effect.tryPromise({
    try: () => keysFromSigner({ signer, account, contract: deployment.contract, networkPassphrase: deployment.networkPassphrase }),
    catch: (error) => error
  })
  const setup = yield* openProvingSetup({ threads: 1 })
  const wallet = yield* openWallet({ keys, account, reader, setup, store: new FileStore(input.stateDir) })

  // The deployment's verification key is compared with the packaged circuit's before the proof is made.
  const data = yield* wallet.proveRegister()
  const source = yield* Effect.tryPromise(() => server.getAccount(account))
  const tx = yield* Effect.tryPromise(() =>
    prepareCall(server, deployment, { account, sequence: source.sequenceNumber() }, { fn: "register", account, auditorId: 0, data }))
  tx.sign(key)
  const sent = yield* Effect.tryPromise(() => server.sendTransaction(tx))
  if (sent.status !== "PENDING") return yield* Effect.fail(new Error(`sendTransaction answered ${sent.status}`))
  const final = yield* Effect.tryPromise(() => server.pollTransaction(sent.hash, { attempts: 200, sleepStrategy: () => 100 }))

  // Registered, both balances are the identity commitment, which the empty openings commit to.
  const balances = yield* wallet.balances()
  return {
    account,
    status: final.status,
    hash: sent.hash,
    circuits: { dir: packagedCircuitsDir(), version: setup.version },
    keys: keys.toJSON(),
    dataBytes: data.length,
    balances: { spendable: balances.spendable.toString(), receiving: balances.receiving.toString() }
  }
}).pipe(Effect.scoped)

Effect.runPromise(program).then(
  (summary) => console.log(JSON.stringify(summary)),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
