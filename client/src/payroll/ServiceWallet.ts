import type { Keypair } from "@stellar/stellar-sdk"
import { Effect, Either, Schedule } from "effect"
import type { ProvingSetup } from "../confidential/Circuits.ts"
import { openWallet } from "../confidential/ConfidentialWallet.ts"
import { keysFromSigner } from "../confidential/crypto/KeyDerivation.ts"
import { ProofFailed, StateMismatch } from "../confidential/Errors.ts"
import type { Prover } from "../confidential/proving/Prover.ts"
import { fetchAccountEvents } from "../confidential/state/ArchiveEvents.ts"
import type { Cursor } from "../confidential/state/Opening.ts"
import type { WalletStore } from "../confidential/state/Store.ts"
import { keypairSigner } from "./KeypairSigner.ts"
import type { ServiceChain } from "./ServiceChain.ts"

/** A wallet that only reads (balances, received amounts) proves nothing. */
export const noProver: Prover = (() => {
  const refuse = (circuit: { readonly name: string }) => Effect.fail(new ProofFailed({ circuit: circuit.name, message: "this wallet was opened to read; it does not prove" }))
  return { execute: refuse, prove: refuse, proveWitness: refuse, verify: refuse, verificationKey: refuse }
})()

export interface ServiceWalletOptions {
  readonly baseUrl: string
  readonly chain: ServiceChain
  readonly key: Keypair
  /** The circuits and prover; for reading only, `{ prover: noProver, ...loadCircuits() }`. */
  readonly setup: ProvingSetup
  readonly store: WalletStore
  /** How many times the openings are checked again, half a second apart, while the archive catches up (default 120). */
  readonly attempts?: number
}

/**
 * The account's confidential wallet as the console opens it in a browser, from a Node process holding the account's
 * key: keys from its SEP-53 signature (one signature when they reproduce the registered keys), openings from `store`
 * caught up from the service's archive. `catchUp` syncs (or rebuilds from every event) until the openings agree with
 * the chain and `done` holds of the balances: the archive trails the ledger by a poll or two.
 * Provide an `HttpClient`.
 */
export const openServiceWallet = (options: ServiceWalletOptions) =>
  Effect.gen(function*() {
    const { chain, key, baseUrl } = options
    const account = key.publicKey()
    const contract = chain.deployment.contract
    const registered = yield* Effect.tryPromise({ try: () => chain.reader.account(account), catch: (e) => e })
    const keys = yield* Effect.tryPromise({
      try: () => keysFromSigner({
        signer: keypairSigner(key), account, contract, networkPassphrase: chain.deployment.networkPassphrase,
        ...(registered === undefined ? {} : { registered })
      }),
      catch: (e) => e
    })
    const wallet = yield* openWallet({ keys, account, reader: chain.reader, setup: options.setup, store: options.store })
    const events = (after: Cursor | undefined) => Effect.map(fetchAccountEvents(baseUrl, contract, account, after), (h) => h.events)
    const sync = Effect.flatMap(Effect.suspend(() => events(wallet.state.cursor)), wallet.sync)
    const rebuild = Effect.flatMap(events(undefined), (all) => wallet.rebuild(all))
    const notYet = new StateMismatch({ accumulator: "spendable", message: "the balances are not there yet" })
    const catchUp = (done: (b: { readonly spendable: bigint; readonly receiving: bigint }) => boolean = () => true, from: "sync" | "rebuild" = "sync") =>
      Effect.gen(function*() {
        yield* from === "sync" ? sync : rebuild
        const checked = yield* Effect.either(wallet.balances())
        if (Either.isRight(checked)) return done(checked.right) ? checked.right : yield* Effect.fail(notYet)
        if (checked.left._tag !== "StateMismatch") return yield* Effect.fail(checked.left)
        // Openings that disagree with the chain (another device spent, or this one never held them) are rebuilt.
        yield* rebuild
        const again = yield* wallet.balances()
        return done(again) ? again : yield* Effect.fail(notYet)
      }).pipe(Effect.retry({
        schedule: Schedule.spaced("500 millis"),
        times: options.attempts ?? 120,
        while: (e) => typeof e === "object" && e !== null && "_tag" in e && e._tag === "StateMismatch"
      }))
    return { wallet, account, registered: registered !== undefined, events, rebuild, catchUp }
  })

export type ServiceWallet = Effect.Effect.Success<ReturnType<typeof openServiceWallet>>
