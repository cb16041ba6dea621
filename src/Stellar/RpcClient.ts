import { Contract, type FeeBumpTransaction, Keypair, rpc, StrKey, type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Duration, Effect, Option } from "effect"
import { StellarConfig } from "../Config.ts"
import { trackRpcCall } from "../Observability/Metrics.ts"

export class RpcError extends Data.TaggedError("RpcError")<{
  readonly method: string
  readonly message: string
  readonly cause?: unknown
}> {}

export interface AccountSigners {
  readonly thresholds: { readonly master: number; readonly low: number; readonly medium: number; readonly high: number }
  /** Every key that may sign for the account with its weight, the master key included. */
  readonly weights: Readonly<Record<string, number>>
}

/** The host refused a simulated call (a contract error, a missing function, a trap): the call itself failed. */
export class SimulationFailed extends Data.TaggedError("SimulationFailed")<{ readonly message: string }> {}

/** Any valid account serves as the source of a read-only simulation; it is never submitted. */
const SIMULATION_SOURCE = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"

/**
 * Stellar RPC (and, for development accounts, friendbot) as an Effect service: the only place that talks to the
 * network. Every call is timed out, counted and traced.
 */
export class RpcClient extends Effect.Service<RpcClient>()("Stellar/RpcClient", {
  effect: Effect.gen(function*() {
    const config = yield* StellarConfig
    const http = yield* HttpClient.HttpClient
    const url = new URL(config.rpcUrl)
    const server = new rpc.Server(config.rpcUrl, {
      allowHttp: url.protocol === "http:",
      timeout: Duration.toMillis(config.rpcTimeout)
    })

    const call = <A>(method: string, run: () => Promise<A>) =>
      Effect.tryPromise({
        try: run,
        catch: (cause) =>
          new RpcError({ method, message: cause instanceof Error ? cause.message : String(cause), cause })
      }).pipe(
        Effect.timeoutFail({
          duration: config.rpcTimeout,
          onTimeout: () => new RpcError({ method, message: "timed out" })
        }),
        trackRpcCall(method),
        Effect.withSpan(`RpcClient.${method}`)
      )

    const getHealth = call("getHealth", () => server.getHealth())

    /** The account's signers and thresholds, or none when the account does not exist on-chain. */
    const getAccountSigners = (accountId: string) =>
      call("getLedgerEntries", () =>
        server.getLedgerEntries(
          xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(accountId).xdrPublicKey() }))
        )).pipe(
          Effect.map((response) =>
            Option.fromNullable(response.entries[0]).pipe(
              Option.filter((entry) => entry.val.type === "account"),
              Option.map((entry): AccountSigners => {
                const account = (entry.val as xdr.LedgerEntryDataAccount).account
                const [master = 0, low = 0, medium = 0, high = 0] = account.thresholds.toBytes()
                const weights: Record<string, number> = { [accountId]: master }
                for (const signer of account.signers) {
                  if (signer.key.type === "signerKeyTypeEd25519") {
                    weights[StrKey.encodeEd25519PublicKey(signer.key.ed25519.toBytes())] = signer.weight
                  }
                }
                return { thresholds: { master, low, medium, high }, weights }
              })
            )
          )
        )

    /** Simulates a read-only contract call and returns its value. */
    const simulateRead = (contractId: string, fn: string, args: ReadonlyArray<xdr.ScVal>) =>
      Effect.gen(function*() {
        const tx = new TransactionBuilder(
          { accountId: () => SIMULATION_SOURCE, sequenceNumber: () => "0", incrementSequenceNumber: () => {} },
          { fee: "100", networkPassphrase: config.networkPassphrase }
        )
          .addOperation(new Contract(contractId).call(fn, ...args))
          .setTimeout(30)
          .build()
        const result = yield* call("simulateTransaction", () => server.simulateTransaction(tx))
        if (rpc.Api.isSimulationError(result)) return yield* new SimulationFailed({ message: result.error })
        if (!rpc.Api.isSimulationSuccess(result) || result.result === undefined) {
          return yield* new RpcError({ method: "simulateTransaction", message: "simulation returned no value" })
        }
        return result.result.retval
      }).pipe(Effect.withSpan("RpcClient.simulateRead", { attributes: { contractId, fn } }))

    const sendTransaction = (tx: Transaction | FeeBumpTransaction) =>
      call("sendTransaction", () => server.sendTransaction(tx))

    const getTransaction = (hash: string) => call("getTransaction", () => server.getTransaction(hash))

    const getAccount = (accountId: string) => call("getAccount", () => server.getAccount(accountId))

    /** Simulates and assembles a Soroban transaction (footprint, resources, fee) before it is signed. */
    const prepareTransaction = (tx: Transaction) => call("prepareTransaction", () => server.prepareTransaction(tx))

    /** Asks friendbot (FRIENDBOT_URL) to create and fund `accountId`; its HTTP status says whether it did. */
    const friendbot = (accountId: string) =>
      http.execute(HttpClientRequest.get(config.friendbotUrl, { urlParams: { addr: accountId } })).pipe(
        Effect.map((response) => response.status),
        Effect.scoped,
        Effect.mapError((cause) => new RpcError({ method: "friendbot", message: cause.message, cause })),
        Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new RpcError({ method: "friendbot", message: "timed out" }) }),
        Effect.withSpan("RpcClient.friendbot")
      )

    return {
      getHealth,
      getAccountSigners,
      simulateRead,
      sendTransaction,
      getTransaction,
      getAccount,
      prepareTransaction,
      friendbot
    } as const
  }),
  dependencies: [FetchHttpClient.layer]
}) {}
