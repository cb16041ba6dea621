import { Address, Contract, nativeToScVal, scValToNative, TransactionBuilder } from "@stellar/stellar-sdk"
import { Clock, Effect, Option } from "effect"
import { OperationalKeys } from "../Auth/Keys.ts"
import { FundingConfig, StellarConfig, TESTNET_PASSPHRASE } from "../Config.ts"
import { InvalidRequest, NotImplemented, RateLimited, UpstreamUnavailable } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { Sponsor } from "../Transfers/Sponsor.ts"
import { Transfers } from "../Transfers/Transfers.ts"
import { VaultState } from "./Api.ts"
import { FaucetRepo } from "./FaucetRepo.ts"
import { formatStroops, parseStroops } from "./Stroops.ts"

const FAUCET_VALIDITY_SECONDS = 120
const rpcDown = (what: string) => new UpstreamUnavailable({ error: `could not ${what} through Stellar RPC` })

/** The bridged-USDC vault's balance and the testnet USDC faucet. */
export class Funding extends Effect.Service<Funding>()("Funding/Funding", {
  effect: Effect.gen(function*() {
    const config = yield* FundingConfig
    const { networkPassphrase, confidentialTokenContract } = yield* StellarConfig
    // The pooled USDC sits in the confidential token contract itself (OpenZeppelin's confidential token holds the
    // underlying asset it wraps), so that is the vault unless another one is named.
    const vaultContract = Option.orElse(config.vaultContract, () => confidentialTokenContract)
    const rpc = yield* RpcClient
    const keys = yield* OperationalKeys
    const sponsor = yield* Sponsor
    const transfers = yield* Transfers
    const grants = yield* FaucetRepo
    const faucetAmount = parseStroops(config.faucetAmount)
    if (faucetAmount === undefined) return yield* Effect.dieMessage("FAUCET_AMOUNT must be a positive decimal with at most 7 places")
    const oneAtATime = yield* Effect.makeSemaphore(1)

    const vault = Effect.gen(function*() {
      if (Option.isNone(config.usdcContract) || Option.isNone(vaultContract)) {
        return yield* new NotImplemented({
          error: "the funding vault is not configured on this service (USDC_CONTRACT, and VAULT_CONTRACT or CONFIDENTIAL_TOKEN_CONTRACT)"
        })
      }
      const vaultId = vaultContract.value
      const balance = yield* rpc.simulateRead(config.usdcContract.value, "balance", [Address.fromString(vaultId).toScVal()]).pipe(
        Effect.tapError((e) => Effect.logWarning("vault balance read failed", e.message)),
        Effect.mapError(() => rpcDown("read the vault balance"))
      )
      const stroops = yield* Effect.try({
        try: () => BigInt(scValToNative(balance) as bigint | number),
        catch: () => rpcDown("read the vault balance")
      })
      return new VaultState({ vault: vaultId, held: formatStroops(stroops) })
    }).pipe(Effect.withSpan("Funding.vault"))

    /** One grant per address per 24 hours, checked and recorded with the submission itself. */
    const grant = (address: string, innerHash: string, now: Date) =>
      Effect.gen(function*() {
        const granted = yield* grants.grant(address, innerHash, now)
        if (!granted) return yield* new RateLimited({ error: "this address was funded in the last 24 hours" })
      })

    const faucet = Effect.fn("Funding.faucet")(function*(session: Session, requested: string | undefined) {
      if (networkPassphrase !== TESTNET_PASSPHRASE) {
        return yield* new NotImplemented({ error: "the faucet runs on testnet only" })
      }
      if (Option.isNone(config.usdcContract)) {
        return yield* new NotImplemented({ error: "the faucet is not configured on this service (USDC_CONTRACT)" })
      }
      const to = requested ?? (session.method === "sep10" ? session.sub : undefined)
      if (to === undefined) return yield* new InvalidRequest({ error: "address is required for an email session" })
      const usdc = config.usdcContract.value
      const faucetAccount = keys.faucet.publicKey()
      return yield* oneAtATime.withPermits(1)(Effect.gen(function*() {
        const account = yield* rpc.getAccount(faucetAccount).pipe(Effect.mapError(() => rpcDown("read the faucet account")))
        const nowMs = yield* Clock.currentTimeMillis
        const maxTime = Math.floor(nowMs / 1000) + FAUCET_VALIDITY_SECONDS
        const draft = new TransactionBuilder(account, {
          fee: "1000",
          networkPassphrase,
          timebounds: { minTime: 0, maxTime }
        })
          .addOperation(
            new Contract(usdc).call(
              "transfer",
              Address.fromString(faucetAccount).toScVal(),
              Address.fromString(to).toScVal(),
              nativeToScVal(faucetAmount, { type: "i128" })
            )
          )
          .build()
        const prepared = yield* rpc.prepareTransaction(draft).pipe(Effect.mapError(() => rpcDown("prepare the faucet transfer")))
        prepared.sign(keys.faucet)
        const fee = sponsor.feeBump(prepared)
        const now = new Date(nowMs)
        yield* Effect.logInfo("faucet grant").pipe(Effect.annotateLogs({ address: to }))
        return yield* transfers.execute({
          inner: prepared,
          fee,
          maxTime,
          sessionSub: session.sub,
          orgId: null,
          payoutId: null,
          quota: undefined,
          link: grant(to, Buffer.from(prepared.hash()).toString("hex"), now)
        })
      }))
    })

    return { vault, faucet } as const
  }),
  dependencies: [RpcClient.Default, OperationalKeys.Default, Sponsor.Default, Transfers.Default, FaucetRepo.Default]
}) {}
