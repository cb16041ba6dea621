import { type FeeBumpTransaction, type Transaction, xdr } from "@stellar/stellar-sdk"
import { Effect, Layer, Option } from "effect"
import type { SendAnswer, TransactionAnswer } from "../../src/Stellar/RpcAnswers.ts"
import { type AccountSigners, RpcClient, RpcError, SimulationFailed } from "../../src/Stellar/RpcClient.ts"

/** What the stub answers to one `sendTransaction`; "transport" fails the call as a dropped connection does. */
export type StubSend = "PENDING" | "DUPLICATE" | "TRY_AGAIN_LATER" | "transport" | { readonly error: "txBadSeq" | "txInsufficientFee" }

type Outcome = { readonly status: "SUCCESS" | "FAILED"; readonly ledger: number }

const transactionResult = (result: xdr.TransactionResultResult) =>
  new xdr.TransactionResult({ feeCharged: 0n, result, ext: xdr.TransactionResultExt.v0() })

/**
 * An in-memory ledger behind the `RpcClient` test layer: accounts with their signers, scripted `sendTransaction`
 * answers (PENDING once the script is used up), transactions landed or failed, and the latest ledger's close time.
 */
export class StubLedger {
  latestLedger = 1000
  /** Unix seconds of the latest ledger's close, as `getTransaction` reports it. */
  latestLedgerCloseTime = 0
  readonly accounts = new Map<string, AccountSigners>()
  readonly outcomes = new Map<string, Outcome>()
  readonly sent: Array<string> = []
  private script: Array<StubSend> = []
  /** `getTransaction` calls that fail as transport failures before it answers again. */
  getFailures = 0

  scriptSend(...answers: ReadonlyArray<StubSend>) {
    this.script.push(...answers)
  }

  clearScript() {
    this.script = []
  }

  nextSend(): StubSend {
    return this.script.shift() ?? "PENDING"
  }

  setAccount(id: string, signers: AccountSigners) {
    this.accounts.set(id, signers)
  }

  land(hash: string, ledger = this.latestLedger) {
    this.outcomes.set(hash, { status: "SUCCESS", ledger })
  }

  fail(hash: string, ledger = this.latestLedger) {
    this.outcomes.set(hash, { status: "FAILED", ledger })
  }
}

const missing = (method: string) => Effect.fail(new RpcError({ method, message: "not served by the stub ledger" }))

/** `RpcClient` over `ledger`: no network, every answer from memory. */
export const rpcClientOn = (ledger: StubLedger) =>
  Layer.succeed(
    RpcClient,
    RpcClient.make({
      getHealth: missing("getHealth"),
      getAccountSigners: (accountId: string) => Effect.succeed(Option.fromNullable(ledger.accounts.get(accountId))),
      getSequence: () => missing("getLedgerEntries"),
      getSequenceAt: () => missing("getLedgerEntries"),
      simulateAndAssemble: () => missing("simulateTransaction"),
      simulateRead: (_contractId: string, fn: string, _args: ReadonlyArray<xdr.ScVal>) =>
        Effect.fail(new SimulationFailed({ message: `no function ${fn} in the stub ledger` })),
      sendTransaction: (tx: Transaction | FeeBumpTransaction) =>
        Effect.suspend(() => {
          const hash = Buffer.from(tx.hash()).toString("hex")
          ledger.sent.push(hash)
          const answer = ledger.nextSend()
          if (answer === "transport") return Effect.fail(new RpcError({ method: "sendTransaction", message: "socket hang up" }))
          const base = { hash, latestLedger: ledger.latestLedger, latestLedgerCloseTime: ledger.latestLedgerCloseTime }
          const response: SendAnswer = typeof answer === "string"
            ? { ...base, status: answer }
            : {
              ...base,
              status: "ERROR",
              errorResultXdr: transactionResult(
                answer.error === "txBadSeq" ? xdr.TransactionResultResult.txBadSeq() : xdr.TransactionResultResult.txInsufficientFee()
              ).toXDR("base64")
            }
          return Effect.succeed(response)
        }),
      getTransaction: (hash: string) =>
        Effect.suspend(() => {
          if (ledger.getFailures > 0) {
            ledger.getFailures -= 1
            return Effect.fail(new RpcError({ method: "getTransaction", message: "socket hang up" }))
          }
          const base = { latestLedger: ledger.latestLedger, latestLedgerCloseTime: ledger.latestLedgerCloseTime }
          const outcome = ledger.outcomes.get(hash)
          if (outcome === undefined) return Effect.succeed<TransactionAnswer>({ ...base, status: "NOT_FOUND" })
          const landed = outcome.status === "SUCCESS"
          return Effect.succeed<TransactionAnswer>({
            ...base,
            status: outcome.status,
            ledger: outcome.ledger,
            resultXdr: transactionResult(landed ? xdr.TransactionResultResult.txSuccess([]) : xdr.TransactionResultResult.txFailed([]))
              .toXDR("base64")
          })
        }),
      getAccount: () => missing("getAccount"),
      prepareTransaction: () => missing("prepareTransaction"),
      friendbot: () => Effect.succeed(200)
    })
  )
