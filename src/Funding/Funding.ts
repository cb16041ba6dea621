import {
  Account, Address, authorizeEntry, Contract, nativeToScVal, Operation, scValToNative, TransactionBuilder, type xdr
} from "@stellar/stellar-sdk"
import { Cause, Clock, Effect, Exit, Option } from "effect"
import { OperationalKeys } from "../Auth/Keys.ts"
import { FundingConfig, StellarConfig, TESTNET_PASSPHRASE } from "../Config.ts"
import { InvalidRequest, NotImplemented, RateLimited, UpstreamUnavailable } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { txHashHex } from "../Transfers/Envelope.ts"
import { Sponsor } from "../Transfers/Sponsor.ts"
import { Transfers } from "../Transfers/Transfers.ts"
import { VaultState } from "./Api.ts"
import { type ChannelLease, makeChannels } from "./Channels.ts"
import { FaucetRepo } from "./FaucetRepo.ts"
import { formatStroops, parseStroops } from "./Stroops.ts"
import * as Spans from "../Observability/Spans.ts"

const FAUCET_VALIDITY_SECONDS = 120
/**
 * How many ledgers the faucet's signed authorization stays valid: twice the transaction's validity at testnet's
 * 5-second ledgers (the faucet runs on testnet only), so it outlives the transaction, which cannot land past maxTime.
 */
const AUTH_VALIDITY_LEDGERS = Math.ceil(FAUCET_VALIDITY_SECONDS / 5) * 2
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
    // With no channel accounts, the faucet account is its own one channel.
    const channels = yield* makeChannels(keys.channels.length > 0 ? keys.channels : [keys.faucet], FAUCET_VALIDITY_SECONDS)
    const faucetAccount = keys.faucet.publicKey()

    /**
     * The faucet's `transfer(from = faucet, to, amount)` with the channel as its source: simulated (which records
     * the faucet's authorization), the faucet's address-credentials entry signed, simulated again with the signed
     * entry so the resources include its verification, and signed by the channel. With the faucet as the source,
     * the entry uses the source account's credentials and the first simulation is all it needs.
     */
    const prepare = (lease: ChannelLease, usdc: string, to: string) =>
      Effect.gen(function*() {
        const source = lease.key.publicKey()
        const onLedger = yield* rpc.getAccount(source).pipe(Effect.mapError(() => rpcDown("read the channel account")))
        const rpcSequence = BigInt(onLedger.sequenceNumber())
        const sequence = lease.sequence !== undefined && lease.sequence > rpcSequence ? lease.sequence : rpcSequence
        const build = (operation: xdr.Operation) =>
          new TransactionBuilder(new Account(source, sequence.toString()), {
            fee: "1000",
            networkPassphrase,
            timebounds: { minTime: 0, maxTime: lease.maxTime }
          }).addOperation(operation).build()
        const call = new Contract(usdc).call(
          "transfer",
          Address.fromString(faucetAccount).toScVal(),
          Address.fromString(to).toScVal(),
          nativeToScVal(faucetAmount, { type: "i128" })
        )
        const simulated = yield* rpc.prepareTransaction(build(call)).pipe(Effect.mapError(() => rpcDown("prepare the faucet transfer")))
        const op = simulated.operations[0]
        const auth = op?.type === "invokeHostFunction" ? op.auth ?? [] : []
        if (op?.type !== "invokeHostFunction" || !auth.some((e) => e.credentials.type === "sorobanCredentialsAddress")) {
          simulated.sign(lease.key)
          return simulated
        }
        const { latestLedger } = yield* rpc.getHealth.pipe(Effect.mapError(() => rpcDown("read the latest ledger")))
        const validUntil = latestLedger + AUTH_VALIDITY_LEDGERS
        const signed = yield* Effect.forEach(auth, (entry) =>
          entry.credentials.type === "sorobanCredentialsAddress"
            ? Effect.promise(() => authorizeEntry(entry, keys.faucet, validUntil, networkPassphrase))
            : Effect.succeed(entry))
        const prepared = yield* rpc.prepareTransaction(build(Operation.invokeHostFunction({ func: op.func, auth: signed }))).pipe(
          Effect.mapError(() => rpcDown("prepare the faucet transfer"))
        )
        prepared.sign(lease.key)
        return prepared
      }).pipe(Spans.withSpan("Funding.prepare"))

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
    }).pipe(Spans.withSpan("Funding.vault"))

    /** One grant per address per 24 hours, checked and recorded with the submission itself. */
    const grant = (address: string, innerHash: string, now: Date) =>
      Effect.gen(function*() {
        const granted = yield* grants.grant(address, innerHash, now)
        if (!granted) return yield* new RateLimited({ error: "this address was funded in the last 24 hours" })
      })

    const faucet = Spans.fn("Funding.faucet")(function*(session: Session, requested: string | undefined) {
      if (networkPassphrase !== TESTNET_PASSPHRASE) {
        return yield* new NotImplemented({ error: "the faucet runs on testnet only" })
      }
      if (Option.isNone(config.usdcContract)) {
        return yield* new NotImplemented({ error: "the faucet is not configured on this service (USDC_CONTRACT)" })
      }
      const to = requested ?? (session.method === "sep10" ? session.sub : undefined)
      if (to === undefined) return yield* new InvalidRequest({ error: "address is required for an email session" })
      const usdc = config.usdcContract.value
      return yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* channels.lease
        const prepared = yield* prepare(lease, usdc, to).pipe(Effect.onError(() => channels.release(lease, undefined)))
        const innerHash = txHashHex(prepared)
        yield* Effect.logInfo("faucet grant").pipe(Effect.annotateLogs({ address: to, channel: lease.key.publicKey() }))
        return yield* transfers.execute({
          inner: prepared,
          fee: sponsor.feeBump(prepared),
          maxTime: lease.maxTime,
          sessionSub: session.sub,
          orgId: null,
          payoutId: null,
          quota: undefined,
          link: grant(to, innerHash, new Date(yield* Clock.currentTimeMillis)).pipe(Effect.zipRight(channels.carry(lease, innerHash)))
        }).pipe(
          // Final (or never recorded): the channel is free again. Anything else (a timeout, the RPC unreachable after
          // the send, an interruption) may still land before maxTime, so the lease runs until it expires.
          Effect.onExit((exit) => {
            if (Exit.isSuccess(exit)) return channels.release(lease, BigInt(prepared.sequence))
            const error = Cause.failureOption(exit.cause)
            return Option.exists(error, (e) => e._tag === "TransferRejected" || e._tag === "RateLimited")
              ? channels.release(lease, undefined)
              : Effect.void
          })
        )
      }))
    })

    return { vault, faucet } as const
  }),
  dependencies: [RpcClient.Default, OperationalKeys.Default, Sponsor.Default, Transfers.Default, FaucetRepo.Default]
}) {}
