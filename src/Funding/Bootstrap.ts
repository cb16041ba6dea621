import { Effect, Layer } from "effect"
import { OperationalKeys } from "../Auth/Keys.ts"
import { StellarConfig, TESTNET_PASSPHRASE } from "../Config.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"

/**
 * Development bootstrap: operational keys generated on this start, on testnet, are funded once through friendbot.
 * It runs in the background; a failure is logged, never fatal.
 */
export const FriendbotBootstrapLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const keys = yield* OperationalKeys
    const { networkPassphrase } = yield* StellarConfig
    const rpc = yield* RpcClient
    if (!keys.generated || networkPassphrase !== TESTNET_PASSPHRASE) return
    const accounts = [
      ["sponsor", keys.sponsor.publicKey()],
      ["faucet", keys.faucet.publicKey()],
      ...keys.channels.map((k, i) => [`channel ${i}`, k.publicKey()] as const)
    ] as const
    const fund = ([role, account]: readonly [string, string]) =>
      rpc.friendbot(account).pipe(
        Effect.flatMap((status) =>
          status >= 200 && status < 300
            ? Effect.logInfo(`funded the generated ${role} account through friendbot`).pipe(Effect.annotateLogs({ account }))
            : Effect.logWarning(`friendbot refused the ${role} account`).pipe(Effect.annotateLogs({ account, status }))
        ),
        Effect.catchAll(() =>
          Effect.logWarning(`could not fund the generated ${role} account through friendbot`).pipe(Effect.annotateLogs({ account }))
        )
      )
    yield* Effect.forEach(accounts, fund, { concurrency: 4, discard: true }).pipe(Effect.forkScoped)
  })
)
