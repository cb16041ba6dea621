// A contractor's received amounts, decrypted in their browser (issue 31 §3), loaded with import() by the payouts page
// only: the confidential keys from Freighter's signMessage (one request: they reproduce the keys the account
// registered), the openings caught up from the service's archive, each transfer to the account read from the archive
// with the time its ledger closed and decrypted with the viewing key. Nothing computed here leaves the page: the
// service answers public chain data (the archive) and the payouts' hashes, and never sees an amount or a key.
import { type Balances, decodeArchiveEvent, type ReplayEvent } from "@confidential-payroll/client/confidential"
import { type ContractorPayout } from "@confidential-payroll/client/contract"
import { DateTime, Either } from "effect"
import { clientFor, run } from "../api/Client.ts"
import { allMyPayouts } from "../api/Portal.ts"
import { type BrowserWallet, openBrowserWallet, type OpenStage, settle } from "./BrowserWallet.ts"
import type { ReceivedTransfer } from "./ReceivedTotals.ts"
import { inWords } from "./Words.ts"

/** What the page shows once unlocked, and the wallet it keeps open (in this tab's memory) for a withdrawal. */
export interface Unlocked {
  readonly opened: BrowserWallet
  readonly balances: Balances
  readonly received: ReadonlyArray<ReceivedTransfer>
  /** Every payout of the contractor, across organizations and pages, as the service lists them. */
  readonly payouts: ReadonlyArray<ContractorPayout>
  /** How long decrypting the transfers took, in milliseconds (the keys and the sync aside). */
  readonly decryptMs: number
}

/** The unlocking was stopped by the contractor. */
export class UnlockCancelled extends Error {}

/** The account's `transfer` events, all of them, with their ledgers' close times (the replay's form has none). */
const transferEvents = async (session: string, contract: string, account: string, signal: AbortSignal) => {
  const archive = clientFor(session).archive
  const events: Array<ReplayEvent> = []
  const closedAt = new Map<string, Date>()
  let cursor: string | undefined
  do {
    const page = await run(archive.accountEvents({
      path: { contractId: contract, account },
      urlParams: { types: "transfer", limit: 1000, ...(cursor === undefined ? {} : { cursor }) }
    }), signal)
    for (const item of page.events) {
      const event = decodeArchiveEvent(item)
      if (Either.isLeft(event)) throw event.left
      if (event.right === undefined) continue
      events.push(event.right)
      closedAt.set(item.id, DateTime.toDate(item.ledgerClosedAt))
    }
    cursor = page.cursor ?? undefined
  } while (cursor !== undefined)
  return { events, closedAt }
}

/** The transfers to the account in the archive, decrypted; how long the decryption took. */
const readReceived = async (opened: BrowserWallet, session: string, signal: AbortSignal) => {
  const account = opened.wallet.account
  const { events, closedAt } = await transferEvents(session, opened.deployment.contract, account, signal)
  const started = performance.now()
  const decrypted = opened.wallet.received(events)
  const decryptMs = performance.now() - started
  const hashOf = new Map(events.map((e) => [e.id, e.txHash ?? ""]))
  const received: Array<ReceivedTransfer> = decrypted.map((r) => ({
    id: r.id,
    txHash: (hashOf.get(r.id) ?? "").toLowerCase(),
    from: r.from,
    amount: r.amount,
    ledger: r.ledger,
    closedAt: closedAt.get(r.id) ?? new Date(0)
  }))
  return { received, decryptMs }
}

/** "Show amounts": the wallet opened for reading (no prover), the balances, every received amount and payout. */
export const unlockReceived = async (options: {
  readonly account: string
  readonly session: string
  readonly signal: AbortSignal
  readonly onStage: (stage: OpenStage | "decrypting", note?: string) => void
}): Promise<Unlocked> => {
  const { account, session, signal } = options
  let opened: BrowserWallet | undefined
  try {
    opened = await openBrowserWallet({ account, session, proves: [], onStage: options.onStage })
    if (signal.aborted) throw new UnlockCancelled("cancelled")
    const balances = await settle(opened.wallet.balances())
    options.onStage("decrypting")
    const [{ received, decryptMs }, payouts] = await Promise.all([readReceived(opened, session, signal), allMyPayouts(clientFor(session), signal)])
    if (signal.aborted) throw new UnlockCancelled("cancelled")
    return { opened, balances, received, payouts, decryptMs }
  } catch (error) {
    opened?.close()
    if (signal.aborted || error instanceof UnlockCancelled) throw new UnlockCancelled("cancelled")
    throw new Error(inWords(error, account), { cause: error })
  }
}
