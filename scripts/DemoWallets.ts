import type { Keypair } from "@stellar/stellar-sdk"
import { Effect, Schedule } from "effect"
import { ChainReader } from "../client/src/confidential/chain/ChainReader.ts"
import type { ProvingSetup } from "../client/src/confidential/Circuits.ts"
import { type ConfidentialWallet, openWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { keysFromSigner } from "../client/src/confidential/crypto/KeyDerivation.ts"
import { fetchAccountEvents } from "../client/src/confidential/state/ArchiveEvents.ts"
import { MemoryStore } from "../client/src/confidential/state/Store.ts"
import { keypairSigner } from "../test/support/ConfidentialProving.ts"
import { type DemoNetwork, rpcServer } from "./DemoNetwork.ts"

/** A wallet of the confidential client for `key`: keys from its SEP-53 signature, openings in memory. */
export const demoWallet = (network: DemoNetwork, setup: ProvingSetup, key: Keypair) =>
  Effect.gen(function*() {
    const reader = new ChainReader(rpcServer(network.rpcUrl), network.deployment)
    const keys = yield* Effect.promise(() => keysFromSigner({ signer: keypairSigner(key), account: key.publicKey(), contract: network.deployment.contract }))
    return yield* openWallet({ keys, account: key.publicKey(), reader, setup, store: new MemoryStore() })
  })

/**
 * Syncs from the service's archive until `done` holds of the wallet's balances (the archive trails the ledger):
 * every 100 ms, for up to 30 s.
 */
export const syncUntil = (url: string, token: string, wallet: ConfidentialWallet, done: (b: { spendable: bigint; receiving: bigint }) => boolean) =>
  Effect.gen(function*() {
    const history = yield* fetchAccountEvents(url, token, wallet.account, wallet.state.cursor)
    yield* wallet.sync(history.events)
    const balances = yield* wallet.balances().pipe(Effect.orElseSucceed(() => undefined))
    if (balances === undefined || !done(balances)) return yield* Effect.fail("not yet" as const)
    return balances
  }).pipe(Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 300, while: (e) => e === "not yet" }), Effect.delay("100 millis"))
