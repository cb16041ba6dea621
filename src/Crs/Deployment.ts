import { Address, Contract, rpc, xdr } from "@stellar/stellar-sdk"
import { Data, Duration, Effect, Either, Option, Ref, Schedule } from "effect"
import { StellarConfig } from "../Config.ts"
import { ContractId } from "../Domain/Stellar.ts"
import { decodeTokenInstance } from "../Domain/TokenInstance.ts"
import { trackRpcCall } from "../Observability/Metrics.ts"
import * as Spans from "../Observability/Spans.ts"
import { TokenDeployment } from "./DeploymentApi.ts"
import { DeploymentConfig } from "./DeploymentConfig.ts"

/** Stellar RPC could not be read (after a few tries): the same request may succeed later. */
export class DeploymentUnavailable extends Data.TaggedError("DeploymentUnavailable")<{ readonly message: string }> {}

/** The chain and the settings disagree, or the token is no confidential token: a setting names what to fix. */
export class DeploymentRefused extends Data.TaggedError("DeploymentRefused")<{ readonly message: string }> {}

/** Stellar RPC may be briefly unreachable when the service starts: three more tries, 0.1, 0.2 and 0.4 s apart. */
const RETRY = Schedule.exponential(Duration.millis(100)).pipe(Schedule.intersect(Schedule.recurs(3)))

/** The ledger key of the token's instance, where it keeps its asset and registries (Domain/TokenInstance.ts). */
const instanceKey = (contract: string) =>
  xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({
    contract: new Contract(contract).address().toScAddress(),
    key: xdr.ScVal.scvLedgerKeyContractInstance(),
    durability: xdr.ContractDataDurability.persistent
  }))

const addressOf = (address: xdr.ScAddress) => Address.fromScAddress(address).toString()

const override = (name: string, what: string, set: Option.Option<ContractId>, token: string, onChain: string) =>
  Option.isSome(set) && set.value !== onChain
    ? Either.left(new DeploymentRefused({
      message: `${name} is ${set.value}, but the token ${token} names ${onChain} as its ${what}: unset ${name} ` +
        "(the token names its registries) or correct it"
    }))
    : Either.right(ContractId.make(onChain))

/**
 * The token's deployment (GET /confidential/deployment, the gateway's simulations): CONFIDENTIAL_TOKEN_CONTRACT, and
 * what the token keeps in its instance storage (its underlying asset and its auditor and verifier registries,
 * Domain/TokenInstance.ts), read from the chain when first needed — never on the start path — and kept once read;
 * a failed read is tried again by the next request. CONFIDENTIAL_AUDITOR_CONTRACT and CONFIDENTIAL_VERIFIER_CONTRACT,
 * when set, must be what the token names: otherwise DeploymentRefused names the variable (and is logged as an error).
 */
export class Deployment extends Effect.Service<Deployment>()("Crs/Deployment", {
  effect: Effect.gen(function*() {
    const config = yield* DeploymentConfig
    const stellar = yield* StellarConfig
    const kept = yield* Ref.make(Option.none<TokenDeployment>())
    const lock = yield* Effect.makeSemaphore(1)
    const server = new rpc.Server(stellar.rpcUrl, {
      allowHttp: new URL(stellar.rpcUrl).protocol === "http:",
      timeout: Duration.toMillis(stellar.rpcTimeout)
    })

    const read = (settings: Option.Option.Value<DeploymentConfig>) =>
      Effect.tryPromise({
        try: () => server.getLedgerEntries(instanceKey(settings.contract)),
        catch: () => new DeploymentUnavailable({ message: "Stellar RPC could not be reached to read the token's deployment" })
      }).pipe(
        Effect.timeoutFail({
          duration: stellar.rpcTimeout,
          onTimeout: () => new DeploymentUnavailable({ message: "Stellar RPC did not answer in time to read the token's deployment" })
        }),
        trackRpcCall("getLedgerEntries"),
        Effect.retry(RETRY),
        Effect.flatMap(({ entries }) => {
          const { contract, networkPassphrase } = settings
          return Either.flatMap(
            Either.mapLeft(decodeTokenInstance(contract, networkPassphrase, entries[0]?.val, addressOf), (invalid) =>
              new DeploymentRefused({ message: `CONFIDENTIAL_TOKEN_CONTRACT: ${invalid.message}` })),
            (onChain) =>
              Either.all({
                auditorRegistry: override("CONFIDENTIAL_AUDITOR_CONTRACT", "auditor registry", settings.auditorRegistry, contract, onChain.auditorRegistry),
                verifierRegistry: override("CONFIDENTIAL_VERIFIER_CONTRACT", "verifier registry", settings.verifierRegistry, contract, onChain.verifierRegistry)
              }).pipe(Either.map((registries) =>
                TokenDeployment.make({
                  contract,
                  ...registries,
                  underlyingAsset: ContractId.make(onChain.underlyingAsset),
                  auditorId: settings.auditorId,
                  networkPassphrase
                })
              ))
          )
        }),
        Effect.tapError((e) =>
          e._tag === "DeploymentRefused" ? Effect.logError(`the token's deployment is refused: ${e.message}`) : Effect.logWarning(e.message)
        ),
        Spans.withSpan("Deployment.read")
      )

    const orRead = (settings: Option.Option.Value<DeploymentConfig>) =>
      Effect.flatMap(Ref.get(kept), Option.match({
        onSome: Effect.succeed,
        onNone: () => Effect.tap(read(settings), (deployment) => Ref.set(kept, Option.some(deployment)))
      }))

    /** The deployment, read from the chain on first need (one read at a time); none when no token is configured. */
    const current: Effect.Effect<Option.Option<TokenDeployment>, DeploymentUnavailable | DeploymentRefused> = Option.match(config, {
      onNone: () => Effect.succeedNone,
      onSome: (settings) =>
        Effect.flatMap(Ref.get(kept), Option.match({
          onSome: (deployment) => Effect.succeedSome(deployment),
          onNone: () => Effect.asSome(lock.withPermits(1)(orRead(settings)))
        }))
    })

    return {
      /** The token this service is told of (CONFIDENTIAL_TOKEN_CONTRACT), known without reading the chain. */
      token: Option.map(config, (settings) => settings.contract),
      current,
      /** The deployment if it was read already: never reads the chain. */
      known: Ref.get(kept)
    } as const
  })
}) {}
