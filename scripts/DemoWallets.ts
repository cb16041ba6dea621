import type { Keypair } from "@stellar/stellar-sdk"
import type { ProvingSetup } from "../client/src/confidential/Circuits.ts"
import type { ConfidentialWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { clientWallet, syncUntil as syncWallet } from "../test/support/ConfidentialProving.ts"
import type { DemoNetwork } from "./DemoNetwork.ts"

/** A wallet of the confidential client for `key`: keys from its SEP-53 signature, openings in memory. */
export const demoWallet = (network: DemoNetwork, setup: ProvingSetup, key: Keypair) => clientWallet(network.rpcUrl, network.deployment, setup, key)

/** Syncs from the service's archive until `done` holds of the wallet's balances (the archive trails the ledger). */
export const syncUntil = (url: string, token: string, wallet: ConfidentialWallet, done: (b: { spendable: bigint; receiving: bigint }) => boolean) =>
  syncWallet(url, token, wallet, done)
