import { type Keypair, rpc, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { prepareCall, type TokenCall } from "../client/src/confidential/chain/Calls.ts"
import { ChainReader } from "../client/src/confidential/chain/ChainReader.ts"
import type { ProvingSetup } from "../client/src/confidential/Circuits.ts"
import { type ConfidentialWallet, openWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { keysFromSigner } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { fetchAccountEvents } from "../client/src/confidential/state/ArchiveEvents.ts"
import { MemoryStore } from "../client/src/confidential/state/Store.ts"
import { deploymentOf, keypairSigner } from "../test/support/ConfidentialProving.ts"
import type { LoopbackRpc } from "../test/support/LoopbackRpc.ts"

/** A wallet of the confidential client for `key`: keys from its SEP-53 signature, openings in memory. */
export const demoWallet = (ledger: LoopbackRpc, token: string, setup: ProvingSetup, key: Keypair) =>
  Effect.gen(function*() {
    const reader = new ChainReader(new rpc.Server(ledger.url, { allowHttp: true }), deploymentOf(ledger.deployConfidentialToken(token), ledger.networkPassphrase))
    const keys = yield* Effect.promise(() => keysFromSigner({ signer: keypairSigner(key), account: key.publicKey(), contract: token }))
    return yield* openWallet({ keys, account: key.publicKey(), reader, setup, store: new MemoryStore() })
  })

/** A token call built by simulation, signed by `key` (as a wallet would), for the caller to send or hand on. */
export const signedCall = (ledger: LoopbackRpc, token: string, key: Keypair, call: TokenCall) =>
  Effect.promise(async () => {
    const server = new rpc.Server(ledger.url, { allowHttp: true })
    const sequence = (ledger.account(key.publicKey())?.sequence ?? 0n).toString()
    const deployment = deploymentOf(ledger.deployConfidentialToken(token), ledger.networkPassphrase)
    const tx = await prepareCall(server, deployment, { account: key.publicKey(), sequence }, call)
    tx.sign(key)
    return tx
  })

/** Sends a signed call through Stellar RPC, paying its own fee, and waits until it is final. */
export const sendCall = (ledger: LoopbackRpc, token: string, key: Keypair, call: TokenCall) =>
  Effect.flatMap(signedCall(ledger, token, key, call), (tx) =>
    Effect.promise(async () => {
      const server = new rpc.Server(ledger.url, { allowHttp: true })
      const sent = await server.sendTransaction(tx)
      const final = await server.pollTransaction(sent.hash, { attempts: 600, sleepStrategy: () => 100 })
      if (final.status !== "SUCCESS") throw new Error(`${call.fn} ended ${final.status}`)
    }))

/** Syncs from the service's archive until `done` holds of the wallet's balances (the archive trails the ledger). */
export const syncUntil = (url: string, token: string, wallet: ConfidentialWallet, done: (b: { spendable: bigint; receiving: bigint }) => boolean) =>
  Effect.gen(function*() {
    const history = yield* fetchAccountEvents(url, token, wallet.account, wallet.state.cursor)
    yield* wallet.sync(history.events)
    const balances = yield* wallet.balances().pipe(Effect.orElseSucceed(() => undefined))
    if (balances === undefined || !done(balances)) return yield* Effect.fail("not yet" as const)
    return balances
  }).pipe(Effect.retry({ times: 300, while: (e) => e === "not yet" }), Effect.delay("100 millis"))

export { TransactionBuilder }
