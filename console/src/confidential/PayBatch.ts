// Paying an approved batch from the payer's browser (issue 31 §2), loaded with import() by the batch page only: the
// payer's confidential keys from their wallet (Freighter's signMessage), the openings kept sealed in this browser's
// IndexedDB and caught up from the service's archive, each payout proven in the prover's Web Worker, signed by
// Freighter and sent through the service's runner (POST /transfers/prepare, POST /transfer with its payoutId).
//
// Never twice: the page hands over only payouts the service has as `ready` or `failed`, and pays nothing while one is
// `submitted` (in flight); a transfer the service recorded is followed to the ledger, never sent again. A proof made
// but never sent (the tab closed in between, or the payer cancelled) leaves a pending spend in the openings: at the
// next run, with nothing in flight, it is dropped before proving again.
import { FetchHttpClient } from "@effect/platform"
import { runSignedPayroll, type SignedResult } from "@confidential-payroll/client/confidential"
import { BatchId, type PayoutId } from "@confidential-payroll/client/contract"
import { type Recipient, sealReceipt } from "@confidential-payroll/client/sealing"
import { clientFor, run } from "../api/Client.ts"
import { asPayload } from "../api/SealedAmounts.ts"
import { signTransaction } from "@stellar/freighter-api"
import { Effect, Encoding } from "effect"
import { openBrowserWallet, type OpenStage, settle } from "./BrowserWallet.ts"
import { inWords } from "./Words.ts"

export interface PayItem {
  readonly payoutId: PayoutId
  readonly to: string
  readonly amount: bigint
}

export type PayStage = OpenStage | "paying"

export type PayoutStep = "proving" | "signing" | "sent" | "failed"

export interface PayEvents {
  readonly onStage: (stage: PayStage, note?: string) => void
  readonly onPayout: (payoutId: PayoutId, step: PayoutStep, detail?: string) => void
}

/** The payer stopped the run: what was sent stays sent, nothing more is. */
export class PayCancelled extends Error {}

export interface PayOptions extends PayEvents {
  readonly account: string
  readonly batchId: string
  /** Whom each payout's receipt is sealed to: the members who may read amounts, with their sealing keys. */
  readonly recipients: ReadonlyArray<Recipient>
  readonly session: string
  readonly items: ReadonlyArray<PayItem>
  readonly signal: AbortSignal
}

/** Pays `items` in order, one transfer per ledger; answers each payout's result. */
/** A performance mark for each step of each payout (`payout:<step>:<payoutId>`): devtools and bench/console-pay.run.ts read them. */
const mark = (step: PayoutStep, payoutId: string) => performance.mark(`payout:${step}:${payoutId}`)

export const payBatch = async (options: PayOptions): Promise<ReadonlyArray<SignedResult & { readonly payoutId: PayoutId }>> => {
  const { account, session, signal } = options
  const check = () => {
    if (signal.aborted) throw new PayCancelled("cancelled")
  }
  let close: (() => void) | undefined
  const stop = () => close?.()
  signal.addEventListener("abort", stop)
  try {
    const opened = await openBrowserWallet({ account, session, proves: ["transfer"], onStage: options.onStage })
    close = opened.close
    const { wallet } = opened
    const origin = window.location.origin
    // Nothing is in flight (the page waits for that): a spend still pending was proven and never sent.
    const stale = wallet.state.pending[0]
    if (stale !== undefined) await settle(wallet.abandon(stale.commitment))
    check()

    options.onStage("paying")
    const results: Array<SignedResult & { readonly payoutId: PayoutId }> = []
    for (const item of options.items) {
      check()
      mark("proving", item.payoutId)
      options.onPayout(item.payoutId, "proving")
      const proven = await settle(wallet.proveTransferWithReceipt(item.to, item.amount))
      // The receipt is stored before the transfer is sent, as the openings are: a transfer the books cannot check is
      // never sent. (A failed payout paid again is a new proof, and its new receipt replaces this one.)
      const receipt = await sealReceipt({ batchId: options.batchId, payoutId: item.payoutId, ...proven.receipt }, options.recipients)
      await run(clientFor(session).sealedReceipts.sealReceipt({ path: { id: BatchId.make(options.batchId), payoutId: item.payoutId }, payload: asPayload(receipt) }))
      const data = proven.data
      check()
      mark("signing", item.payoutId)
      options.onPayout(item.payoutId, "signing")
      const [result] = await settle(runSignedPayroll(origin, session, [{ to: item.to, data: Encoding.encodeBase64(data), payoutId: item.payoutId }], {
        sign: async (prepared) => {
          const signed = await signTransaction(prepared.xdr, { networkPassphrase: prepared.networkPassphrase, address: account })
          if (signed.error !== undefined || signed.signedTxXdr === "") {
            throw new Error(`Freighter did not sign the payout${signed.error === undefined ? "" : `: ${signed.error.message}`}`)
          }
          return signed.signedTxXdr
        }
      }).pipe(Effect.provide(FetchHttpClient.layer)))
      const outcome = { ...result!, payoutId: item.payoutId }
      results.push(outcome)
      if (outcome.status === "SUCCESS") {
        mark("sent", item.payoutId)
        options.onPayout(item.payoutId, "sent", outcome.hash)
        continue
      }
      // It did not land: its pending spend is forgotten, and the run stops for the payer to look.
      const mine = wallet.state.pending.at(-1)
      if (mine !== undefined) await settle(wallet.abandon(mine.commitment))
      options.onPayout(item.payoutId, "failed", outcome.error ?? outcome.status)
      break
    }
    return results
  } catch (error) {
    if (signal.aborted || error instanceof PayCancelled) throw new PayCancelled("cancelled")
    throw new Error(inWords(error, account), { cause: error })
  } finally {
    signal.removeEventListener("abort", stop)
    stop()
  }
}
