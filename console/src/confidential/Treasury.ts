// The paying wallet's treasury in the payer's browser (issue 31 §2), loaded with import() by the Treasury page only:
// its registration with the confidential token (the proof made in the prover's Web Worker), deposits of the
// underlying USDC into its receiving balance, merges into its spendable balance, and both balances decrypted here from
// the openings this browser keeps (IndexedDB, sealed) — caught up from the service's archive and checked against the
// chain, or rebuilt from every event of the wallet when they are lost or disagree. Each call is prepared through the
// service's read-only Stellar RPC gateway, signed by Freighter and sponsored by the service (POST /token/calls): the
// page never submits a transaction and the service never sees an amount it could not read on the ledger.
import {
  type Balances,
  type Cursor,
  prepareCall,
  type ProgressEvent,
  type ProverClient,
  type PublicBalance,
  readPublicBalance,
  rpc,
  SimulationRefusedError,
  type TokenCall,
  type TokenDeployment,
  walletStateKey
} from "@confidential-payroll/client/confidential"
import { signTransaction } from "@stellar/freighter-api"
import { Effect } from "effect"
import { clientFor, run } from "../api/Client.ts"
import { type BrowserWallet, chainOf, openBrowserWallet, proveRegistration, settle, walletStore } from "./BrowserWallet.ts"
import { registrationAuditorId } from "./TreasuryAuditor.ts"
import type { TreasuryStage } from "./TreasuryStages.ts"
import { treasuryWords } from "./TreasuryWords.ts"

/** What the page knows before any key is derived: read from the chain and from this browser's storage. */
export interface TreasuryStatus {
  readonly registered: boolean
  /** This browser keeps sealed openings of the wallet (they may still be behind the chain). */
  readonly kept: boolean
}

/** The openings' balances as last checked against the chain, and where they stand. */
export interface TreasuryView {
  /** Undefined while the openings disagree with the chain. */
  readonly balances: Balances | undefined
  /** Why they disagree, in words (undefined: they agree). */
  readonly mismatch: string | undefined
  /** Spends proven from this browser (payouts) whose transactions the chain has not shown yet. */
  readonly pending: number
  /** The last event of the wallet applied to the openings. */
  readonly cursor: Cursor | undefined
  /** When they were checked against the chain (Date.now()). */
  readonly checkedAt: number
}

export interface StepOptions {
  readonly onStage: (stage: TreasuryStage, note?: string) => void
  /** Aborting stops what has not been signed yet (the prover's worker ends); what was sent stays sent. */
  readonly signal: AbortSignal
}

/** The person stopped it: nothing more is asked of Freighter or sent. */
export class TreasuryCancelled extends Error {}

const ALREADY_REGISTERED = /Error\(Contract, #3500\)/

const stopIfAborted = (signal: AbortSignal) => {
  if (signal.aborted) throw new TreasuryCancelled("cancelled")
}

export const readTreasury = async (account: string, session: string): Promise<TreasuryStatus> => {
  try {
    const { deployment, reader } = await chainOf(session)
    const registered = (await reader.account(account)) !== undefined
    const store = walletStore()
    try {
      return { registered, kept: (await store.get(walletStateKey(deployment.contract, account))) !== undefined }
    } finally {
      await store.close()
    }
  } catch (error) {
    throw new Error(treasuryWords(error, account, "open"), { cause: error })
  }
}

/**
 * The wallet's public balance of the token's underlying asset (its SEP-41 `balance`, and its `symbol`), read through
 * the gateway without keys: what a deposit draws on. `amount` is undefined when the wallet has no trustline to it.
 */
export const readTreasuryPublicBalance = async (account: string, session: string): Promise<PublicBalance> => {
  try {
    const { deployment, server } = await chainOf(session)
    return await readPublicBalance(server, deployment.networkPassphrase, deployment.underlyingAsset, account)
  } catch (error) {
    throw new Error(treasuryWords(error, account, "open"), { cause: error })
  }
}

type CallName = "register" | "deposit" | "merge"

/**
 * One call on the wallet's own account: prepared (simulated through the gateway at the account's sequence number),
 * signed by Freighter, sponsored and submitted by the service; its hash once on the ledger.
 */
const sendCall = async (
  chain: { readonly server: rpc.Server; readonly deployment: TokenDeployment },
  account: string,
  session: string,
  call: TokenCall & { readonly fn: CallName },
  { onStage, signal }: StepOptions
): Promise<string> => {
  onStage("preparing")
  const source = await chain.server.getAccount(account)
  const prepared = await prepareCall(chain.server, chain.deployment, { account, sequence: source.sequenceNumber() }, call)
  stopIfAborted(signal)
  onStage("signing")
  const signed = await signTransaction(prepared.toXDR(), { networkPassphrase: chain.deployment.networkPassphrase, address: account })
  if (signed.error !== undefined || signed.signedTxXdr === "") {
    throw new Error(`Freighter did not sign the ${call.fn === "register" ? "registration" : call.fn}${signed.error === undefined ? "" : `: ${signed.error.message}`}.`)
  }
  // Signed is sent: past this point a cancel would leave the person not knowing whether it landed.
  onStage("sending")
  const sent = await run(clientFor(session).tokenCalls.submit({ payload: { signedXDR: signed.signedTxXdr } }))
  return sent.hash
}

/** The worker's progress, as the registration's steps. */
const registerStage = (event: ProgressEvent): TreasuryStage | undefined => {
  if (event.request === "verificationKey") return "key-check"
  if (event.request !== "prove") return undefined
  return event.stage === "executing-witness" ? "witness" : event.stage === "proving" ? "proving" : undefined
}

/**
 * Registers the wallet with the token, once: keys from two signatures of Freighter's (compared), the `register` proof
 * in the prover's worker, the call sponsored by POST /token/calls. Undefined when it was registered already.
 */
export const registerTreasury = async (account: string, session: string, options: StepOptions): Promise<string | undefined> => {
  const { signal } = options
  const step = (stage: TreasuryStage) => {
    stopIfAborted(signal)
    options.onStage(stage)
  }
  let prover: ProverClient | undefined
  const stop = () => prover?.cancel()
  signal.addEventListener("abort", stop)
  try {
    step("checking")
    const chain = await chainOf(session)
    const { reader } = chain
    if ((await reader.account(account)) !== undefined) return undefined
    const auditorId = await registrationAuditorId(chain, session)
    const data = await proveRegistration(chain, account, {
      onStage: (stage, note) => (note === undefined ? step(stage) : options.onStage(stage, note)),
      onProgress: (event) => {
        const stage = registerStage(event)
        if (stage !== undefined && !signal.aborted) options.onStage(stage)
      },
      onWorker: (worker) => { prover = worker }
    })
    stopIfAborted(signal)
    return await sendCall(chain, account, session, { fn: "register", account, auditorId, data }, options).catch((error: unknown) => {
      if (error instanceof SimulationRefusedError && ALREADY_REGISTERED.test(error.error)) return undefined
      throw error
    })
  } catch (error) {
    if (signal.aborted) throw new TreasuryCancelled("cancelled")
    throw new Error(treasuryWords(error, account, "register"), { cause: error })
  } finally {
    signal.removeEventListener("abort", stop)
    stop()
  }
}

const CATCH_UP_MS = 60_000
const CATCH_UP_EVERY_MS = 500

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener("abort", () => {
      clearTimeout(timer)
      resolve()
    }, { once: true })
  })

const isTagged = (error: unknown, tag: string) => typeof error === "object" && error !== null && "_tag" in error && error._tag === tag

/** The openings of the signed-in wallet, opened (one signature of Freighter's), with what the page does with them. */
const treasuryOf = (opened: BrowserWallet, account: string, session: string) => {
  const { wallet } = opened
  const viewOf = (balances: Balances | undefined, mismatch?: string): TreasuryView => ({
    balances,
    mismatch,
    pending: wallet.state.pending.length,
    cursor: wallet.state.cursor,
    checkedAt: Date.now()
  })
  /** The account's newer events applied, then both balances checked against the chain. */
  const check = async (): Promise<TreasuryView> => {
    await settle(wallet.sync((await opened.events(wallet.state.cursor)).events))
    const checked = await settle(Effect.either(wallet.balances()))
    if (checked._tag === "Right") return viewOf(checked.right)
    if (checked.left._tag === "StateMismatch") return viewOf(undefined, checked.left.message)
    throw checked.left
  }
  /** The openings rebuilt from every event of the wallet; a disagreement left (the archive is behind) is said. */
  const rebuild = async (): Promise<TreasuryView> => {
    try {
      return viewOf(await opened.rebuild())
    } catch (error) {
      if (isTagged(error, "StateMismatch")) return viewOf(undefined, error instanceof Error ? error.message : String(error))
      throw error
    }
  }
  /**
   * After a call landed: the archive records its event a poll or two later; until then the openings lag the chain.
   * A merge moves the spendable commitment that pending spends were proven on, so none of them can land after it:
   * the openings are then rebuilt, which drops them.
   */
  const catchUp = async (signal: AbortSignal, voidsPending: boolean): Promise<TreasuryView> => {
    const until = Date.now() + CATCH_UP_MS
    for (;;) {
      const view = voidsPending ? await rebuild() : await check()
      if (view.mismatch === undefined || Date.now() > until || signal.aborted) return view
      await pause(CATCH_UP_EVERY_MS, signal)
    }
  }
  const callAndCatchUp = async (call: TokenCall & { readonly fn: CallName }, options: StepOptions) => {
    const voidsPending = call.fn === "merge" && wallet.state.pending.length > 0
    let hash: string
    try {
      hash = await sendCall(opened, account, session, call, options)
    } catch (error) {
      if (error instanceof TreasuryCancelled) throw error
      throw new Error(treasuryWords(error, account, call.fn), { cause: error })
    }
    options.onStage("syncing")
    try {
      return { hash, view: await catchUp(options.signal, voidsPending) }
    } catch (error) {
      const words = treasuryWords(error, account, call.fn)
      throw new Error(`The ${call.fn} is on the ledger (transaction ${hash}), but the balance could not be checked after it: ${words}`, { cause: error })
    }
  }
  return {
    check,
    /** `deposit(wallet, wallet, amount)`: the wallet's USDC into its receiving balance (the amount is public). */
    deposit: (amount: bigint, options: StepOptions) => callAndCatchUp({ fn: "deposit", from: account, to: account, amount }, options),
    /** `merge(wallet)`: the receiving balance into the spendable one, which payouts spend. */
    merge: (options: StepOptions) => callAndCatchUp({ fn: "merge", account }, options),
    /** The openings rebuilt from every event of the wallet since its registration; pending spends dropped. */
    rebuild: () =>
      rebuild().catch((error: unknown) => {
        throw new Error(treasuryWords(error, account, "rebuild"), { cause: error })
      }),
    close: opened.close
  }
}

export type Treasury = ReturnType<typeof treasuryOf>

/**
 * The wallet opened in this browser: keys from one signature (they reproduce the registered ones), the openings from
 * IndexedDB caught up from the archive, rebuilt when they disagree with the chain. `reset` ("Rebuild from chain"
 * before the wallet is open) first forgets whatever openings are kept here — lost, altered, or sealed by another
 * version — so that they are replayed from every event of the wallet, which is all a rebuild keeps anyway.
 */
export const openTreasury = async (account: string, session: string, options: StepOptions & { readonly reset?: boolean }) => {
  try {
    if (options.reset === true) {
      const { deployment } = await chainOf(session)
      const store = walletStore()
      await store.delete(walletStateKey(deployment.contract, account)).finally(() => store.close())
    }
    const opened = await openBrowserWallet({
      account,
      session,
      proves: [],
      onStage: (stage, note) => {
        if (!options.signal.aborted) options.onStage(stage, note)
      }
    })
    if (options.signal.aborted) {
      opened.close()
      throw new TreasuryCancelled("cancelled")
    }
    const treasury = treasuryOf(opened, account, session)
    return { treasury, view: await treasury.check() }
  } catch (error) {
    if (options.signal.aborted || error instanceof TreasuryCancelled) throw new TreasuryCancelled("cancelled")
    throw new Error(treasuryWords(error, account, "open"), { cause: error })
  }
}
