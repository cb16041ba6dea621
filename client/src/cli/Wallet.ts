import type { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import type { ProvingSetup } from "../confidential/Circuits.ts"
import { SimulationRefusedError } from "../confidential/chain/ChainReader.ts"
import { loadCircuits } from "../confidential/node.ts"
import { FileStore } from "../confidential/state/FileStore.ts"
import { serviceChain } from "../payroll/ServiceChain.ts"
import { noProver, openServiceWallet } from "../payroll/ServiceWallet.ts"
import { sendTokenCall } from "../payroll/TokenCall.ts"
import { MemoryStore } from "../confidential/state/Store.ts"
import { walletsDir } from "./Config.ts"
import type { Signed } from "./Shared.ts"

/** A setup that reads (balances, received amounts) and proves nothing: no CRS, no bb.js. */
export const readingSetup = Effect.map(loadCircuits(), (circuits): ProvingSetup => ({ prover: noProver, ...circuits }))

/** The signed-in account's wallet, its openings kept sealed in the config directory. */
export const walletOf = (signed: Signed & { readonly key: Keypair }, setup: ProvingSetup) =>
  Effect.gen(function*() {
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const opened = yield* openServiceWallet({ baseUrl: signed.baseUrl, chain, key: signed.key, setup, store: new FileStore(walletsDir()) })
    return { chain, opened }
  })

const ALREADY_REGISTERED = /Error\(Contract, #3500\)/

/**
 * Registers the account with the confidential token, once: the `register` proof, the call signed and sponsored
 * (POST /token/calls), under `auditorId` (default: the deployment's). Undefined when it was registered already.
 */
export const registerAccount = (signed: Signed & { readonly key: Keypair }, setup: ProvingSetup, auditorId?: number) =>
  Effect.gen(function*() {
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const account = signed.key.publicKey()
    if ((yield* Effect.tryPromise({ try: () => chain.reader.account(account), catch: (e) => e })) !== undefined) return undefined
    const { wallet } = yield* openServiceWallet({ baseUrl: signed.baseUrl, chain, key: signed.key, setup, store: new MemoryStore() })
    const data = yield* wallet.proveRegister()
    return yield* sendTokenCall(signed.baseUrl, signed.token, chain, signed.key, { fn: "register", account, auditorId: auditorId ?? chain.deployment.auditorId, data }).pipe(
      Effect.catchIf((e) => e instanceof SimulationRefusedError && ALREADY_REGISTERED.test(e.error), () => Effect.succeed(undefined))
    )
  })
