// "Withdraw" on the contractor portal (issue 31 §3), loaded with import() by the payouts page: moves a chosen amount
// from the contractor's confidential balance to their public USDC balance with a `withdraw` proof made in this
// browser's prover worker, on the keys "Show amounts" already derived (no second signature of the key message). The
// page cannot reach the network: each call is prepared through the service's read-only gateway (POST /stellar-rpc),
// signed by Freighter and sponsored by the service (POST /token/calls), which pays the fee and answers once it is on
// the ledger.
//
// A withdrawal spends the spendable balance only, and payouts arrive in the receiving one. When the spendable balance
// is short of the amount and the two together cover it, the page merges first (the contractor's own `merge`, one
// more signature): to a contractor the money they were paid is one balance, and a merge moves nothing out of it.
// When the spendable balance covers the amount, nothing is merged.
import {
  type Balances,
  type ConfidentialWallet,
  IndexedDbStore,
  openWallet,
  prepareCall,
  type ProverClient,
  SimulationRefusedError,
  type TokenCall
} from "@confidential-payroll/client/confidential"
import { TokenCallRequest } from "@confidential-payroll/client/contract"
import { signTransaction } from "@stellar/freighter-api"
import { Effect, Either } from "effect"
import { ApiError } from "../api/ApiError.ts"
import { clientFor, run } from "../api/Client.ts"
import { formatAmount } from "../lib/Amount.ts"
import { type BrowserWallet, loadCircuits, settle, startWorker } from "./BrowserWallet.ts"
import { inWords } from "./Words.ts"
import { workerProver } from "./WorkerProver.ts"

export type WithdrawStage =
  | "prover"
  | "merge-signing"
  | "merge-sending"
  | "merge-waiting"
  | "proving"
  | "signing"
  | "sending"

export interface WithdrawOptions {
  /** The wallet "Show amounts" opened: its keys, the chain's reader, the archive's events. */
  readonly opened: BrowserWallet
  readonly session: string
  readonly amount: bigint
  readonly signal: AbortSignal
  readonly onStage: (stage: WithdrawStage, note?: string) => void
}

export interface Withdrawn {
  readonly hash: string
  /** The merge's hash, when one came first. */
  readonly merged: string | undefined
  readonly balances: Balances
  /** The withdraw proof's time in the worker (the witness and the proof), in milliseconds. */
  readonly proveMs: number
  /** The wallet as it stands after the withdrawal, for the page to read from next. */
  readonly wallet: ConfidentialWallet
}

/** The contractor stopped it: what was sent stays sent. */
export class WithdrawCancelled extends Error {}

/** Sent and possibly on its way to the ledger: its pending spend must stay until the chain says. */
const MAYBE_LANDED = new Set(["TransferTimeout", "UpstreamUnavailable", "RequestError", "Interrupted"])

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Syncs from the archive until the openings agree with the chain and `done` holds of the balances: the archive trails
 * the ledger by a poll or two, and until it holds the newest event the openings do not match the chain.
 */
const caughtUp = async (wallet: ConfidentialWallet, opened: BrowserWallet, done: (b: Balances) => boolean, signal: AbortSignal) => {
  for (let attempt = 0; ; attempt++) {
    await settle(wallet.sync((await opened.events(wallet.state.cursor)).events))
    const balances = await settle(Effect.either(wallet.balances()))
    if (Either.isRight(balances) && done(balances.right)) return balances.right
    if (Either.isLeft(balances) && balances.left._tag !== "StateMismatch") throw balances.left
    if (attempt === 120) throw new Error("The service's archive has not caught up with your balance within a minute: try again in a moment.")
    if (signal.aborted) throw new WithdrawCancelled("cancelled")
    await sleep(500)
  }
}

export const withdraw = async (options: WithdrawOptions): Promise<Withdrawn> => {
  const { opened, session, amount, signal } = options
  const account = opened.wallet.account
  const { deployment, server, reader } = opened
  const check = () => {
    if (signal.aborted) throw new WithdrawCancelled("cancelled")
  }
  let worker: ProverClient | undefined
  const stop = () => worker?.cancel()
  signal.addEventListener("abort", stop)

  /** Prepares `call`, has Freighter sign it and the service sponsor it; its hash once on the ledger. */
  const send = async (call: TokenCall, stages: { readonly signing: WithdrawStage; readonly sending: WithdrawStage }) => {
    const source = await server.getAccount(account)
    const prepared = await prepareCall(server, deployment, { account, sequence: source.sequenceNumber() }, call)
    check()
    options.onStage(stages.signing)
    const signed = await signTransaction(prepared.toXDR(), { networkPassphrase: deployment.networkPassphrase, address: account })
    if (signed.error !== undefined || signed.signedTxXdr === "") {
      throw new Error(`Freighter did not sign the ${call.fn}${signed.error === undefined ? "" : `: ${signed.error.message}`}.`)
    }
    check()
    options.onStage(stages.sending)
    const sent = await run(clientFor(session).tokenCalls.submit({ payload: new TokenCallRequest({ signedXDR: signed.signedTxXdr }) }))
    return sent.hash
  }

  try {
    // The worker loads its circuit, the CRS and bb.js while the contractor signs the merge.
    options.onStage("prover")
    const circuits = await loadCircuits()
    worker = startWorker(circuits, ["withdraw"], () => undefined)
    const setup = { prover: workerProver(worker), circuits: circuits.circuits, version: circuits.manifest.commit }
    // The same keys over the same sealed openings in this browser, now with a prover.
    const wallet = await settle(openWallet({ keys: opened.wallet.keys, account, reader, setup, store: new IndexedDbStore("payroll-wallet") }))
    let balances = await caughtUp(wallet, opened, () => true, signal)
    // Nothing of this page is in flight: a spend still pending was proven here once and never sent.
    const stale = wallet.state.pending[0]
    if (stale !== undefined) await settle(wallet.abandon(stale.commitment))
    if (amount > balances.spendable + balances.receiving) {
      throw new Error(`You can withdraw at most ${formatAmount(balances.spendable + balances.receiving)} USDC.`)
    }
    check()

    let merged: string | undefined
    if (amount > balances.spendable) {
      merged = await send({ fn: "merge", account }, { signing: "merge-signing", sending: "merge-sending" })
      options.onStage("merge-waiting")
      balances = await caughtUp(wallet, opened, (b) => b.spendable >= amount, signal)
    }

    options.onStage("proving")
    const ready = await worker.ready
    options.onStage("proving", `on ${ready.threads} thread${ready.threads === 1 ? "" : "s"}`)
    check()
    const started = performance.now()
    const data = await settle(wallet.proveWithdraw(amount))
    const proveMs = performance.now() - started
    worker.cancel()
    const pending = wallet.state.pending.at(-1)
    let hash: string
    try {
      check()
      hash = await send({ fn: "withdraw", from: account, to: account, amount, data }, { signing: "signing", sending: "sending" })
    } catch (error) {
      // Never sent, or refused: the proven spend will not land, and the next one is proven on the balance as it is.
      const maybeSent = error instanceof ApiError && MAYBE_LANDED.has(error.tag)
      if (pending !== undefined && !maybeSent) await settle(wallet.abandon(pending.commitment))
      throw error
    }
    // On the ledger: what the page shows next is read after it, whatever the contractor clicks meanwhile.
    balances = await caughtUp(wallet, opened, () => true, new AbortController().signal)
    return { hash, merged, balances, proveMs, wallet }
  } catch (error) {
    if (signal.aborted || error instanceof WithdrawCancelled) throw new WithdrawCancelled("cancelled")
    if (error instanceof SimulationRefusedError) throw new Error(`The token refused it when it was tried out (${error.message}).`, { cause: error })
    throw new Error(inWords(error, account), { cause: error })
  } finally {
    signal.removeEventListener("abort", stop)
    stop()
  }
}
