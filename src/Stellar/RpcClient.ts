import { Contract, type FeeBumpTransaction, Keypair, rpc, StrKey, type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Duration, Effect, Either, Option, ParseResult } from "effect"
import { StellarConfig } from "../Config.ts"
import { trackRpcCall } from "../Observability/Metrics.ts"
import { decodeSendAnswer, decodeTransactionAnswer } from "./RpcAnswers.ts"
import * as Spans from "../Observability/Spans.ts"

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

/**
 * The node answered, but not in a shape the service can read (a field it needs missing or mistyped): what the
 * node did with the request is unknown. Never a defect: the caller retries, and one such answer concerns only the
 * transaction it was about.
 */
export class RpcUnreadable extends Data.TaggedError("RpcUnreadable")<{
  readonly method: string
  readonly message: string
}> {}

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

    /** Every call is timed out, counted (an unreadable answer as a failed call) and traced. */
    const tracked = (method: string) => <A, E>(effect: Effect.Effect<A, E>) =>
      effect.pipe(
        Effect.timeoutFail({
          duration: config.rpcTimeout,
          onTimeout: () => new RpcError({ method, message: "timed out" })
        }),
        trackRpcCall(method),
        Spans.withSpan(`RpcClient.${method}`)
      )

    const attempt = <A>(method: string, run: () => Promise<A>) =>
      Effect.tryPromise({
        try: run,
        catch: (cause) =>
          new RpcError({ method, message: cause instanceof Error ? cause.message : String(cause), cause })
      })

    const call = <A>(method: string, run: () => Promise<A>) => tracked(method)(attempt(method, run))

    /** A raw answer read with `decode`; one it cannot read is `RpcUnreadable`. */
    const callRead = <A>(method: string, run: () => Promise<unknown>, decode: (raw: unknown) => Either.Either<A, ParseResult.ParseError>) =>
      tracked(method)(Effect.flatMap(attempt(method, run), (raw) =>
        Either.match(decode(raw), {
          onLeft: (error) =>
            Effect.fail(new RpcUnreadable({ method, message: `unreadable answer: ${ParseResult.TreeFormatter.formatErrorSync(error)}` })),
          onRight: (answer) => Effect.succeed(answer)
        })))

    const getHealth = call("getHealth", () => server.getHealth())

    /** The account's ledger entry (none when the account does not exist on-chain), and the answering node's latest ledger. */
    const accountEntryAt = (accountId: string) =>
      call("getLedgerEntries", () =>
        server.getLedgerEntries(
          xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(accountId).xdrPublicKey() }))
        )).pipe(
          Effect.map((response) => ({
            latestLedger: response.latestLedger,
            account: Option.fromNullable(response.entries[0]).pipe(
              Option.filter((entry) => entry.val.type === "account"),
              Option.map((entry) => (entry.val as xdr.LedgerEntryDataAccount).account)
            )
          }))
        )

    /** The account's ledger entry, or none when the account does not exist on-chain. */
    const getAccountEntry = (accountId: string) => Effect.map(accountEntryAt(accountId), ({ account }) => account)

    /** The account's signers and thresholds, or none when the account does not exist on-chain. */
    const getAccountSigners = (accountId: string) =>
      getAccountEntry(accountId).pipe(
        Effect.map(Option.map((account): AccountSigners => {
          const [master = 0, low = 0, medium = 0, high = 0] = account.thresholds.toBytes()
          const weights: Record<string, number> = { [accountId]: master }
          for (const signer of account.signers) {
            if (signer.key.type === "signerKeyTypeEd25519") {
              weights[StrKey.encodeEd25519PublicKey(signer.key.ed25519.toBytes())] = signer.weight
            }
          }
          return { thresholds: { master, low, medium, high }, weights }
        }))
      )

    /** The account's current sequence number, or none when the account does not exist on-chain. */
    const getSequence = (accountId: string) =>
      Effect.map(getAccountEntry(accountId), Option.map((account) => BigInt(account.seqNum)))

    /**
     * The account's sequence number and the latest ledger of the node that answered (`getLedgerEntries` reports it):
     * by that ledger, every transaction of the account at or below that number has either applied or never will.
     */
    const getSequenceAt = (accountId: string) =>
      Effect.map(accountEntryAt(accountId), ({ account, latestLedger }) => ({
        latestLedger,
        sequence: Option.map(account, (entry) => BigInt(entry.seqNum))
      }))

    /**
     * Simulates a transaction and assembles it for signing (footprint, resources, resource fee and the
     * authorization entries the simulation recorded), keeping its source, sequence number and time bounds. A call
     * the host refuses is `SimulationFailed` with the host's message.
     */
    const simulateAndAssemble = (tx: Transaction) =>
      Effect.gen(function*() {
        const result = yield* call("simulateTransaction", () => server.simulateTransaction(tx))
        if (rpc.Api.isSimulationError(result)) return yield* new SimulationFailed({ message: result.error })
        if (rpc.Api.isSimulationRestore(result)) {
          return yield* new SimulationFailed({ message: "part of the call's state is archived and must be restored first (restoreFootprint)" })
        }
        return yield* Effect.try({
          try: () => rpc.assembleTransaction(tx, result).build(),
          catch: (cause) =>
            new RpcUnreadable({ method: "simulateTransaction", message: `could not assemble the transaction: ${String(cause)}` })
        })
      }).pipe(Spans.withSpan("RpcClient.simulateAndAssemble"))

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
      }).pipe(Spans.withSpan("RpcClient.simulateRead", { attributes: { contractId, fn } }))

    /** `sendTransaction`, read from the raw JSON-RPC answer (see RpcAnswers.ts). */
    const sendTransaction = (tx: Transaction | FeeBumpTransaction) =>
      callRead("sendTransaction", () => server._sendTransaction(tx), decodeSendAnswer)

    /** `getTransaction`, read from the raw JSON-RPC answer: an envelope or meta the SDK cannot decode still settles. */
    const getTransaction = (hash: string) => callRead("getTransaction", () => server._getTransaction(hash), decodeTransactionAnswer)

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
        Spans.withSpan("RpcClient.friendbot")
      )

    return {
      getHealth,
      getAccountSigners,
      getSequence,
      getSequenceAt,
      simulateAndAssemble,
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
