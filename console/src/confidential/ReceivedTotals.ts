// Which decrypted amount is which payout, and the totals a contractor reads (issue 31 §3). Pure and light: the page
// loads it with itself; the wallet's code (Received.ts) comes with import() only.
//
// A payout names the hash of its transfer's transaction as the service sponsored it: the fee-bump's own hash
// (ContractorPayout.hash). The archive names each event by the hash of the transaction that emitted it, which for a
// sponsored transfer is the same fee-bump (ArchiveEvent.txHash, as Stellar RPC's getEvents gives it). A transfer to
// this account in that transaction is that payout's: its amount is the one decrypted. A transfer no payout names
// (another payer, a payout of an organization this service does not know) is an "other transfer".
import type { ContractorPayout } from "@confidential-payroll/client/contract"
import { Option } from "effect"

/** One transfer to the account, its amount decrypted in this browser. */
export interface ReceivedTransfer {
  /** The event's id (ledger, transaction, operation, index). */
  readonly id: string
  /** The hash of the transaction that emitted it (a sponsored transfer's fee-bump hash), lower case. */
  readonly txHash: string
  readonly from: string
  readonly amount: bigint
  readonly ledger: number
  /** When its ledger closed. */
  readonly closedAt: Date
}

/** One organization's received payouts in one month. */
export interface MonthTotal {
  /** `YYYY-MM` in the browser's time zone, for sorting. */
  readonly month: string
  /** "March 2027", as the browser's locale writes it. */
  readonly label: string
  readonly company: string
  readonly payouts: number
  readonly total: bigint
}

export interface Reconciled {
  /** Each payout's transfer, by payout id (absent: not on the ledger yet, or not yet in the archive). */
  readonly byPayout: ReadonlyMap<string, ReceivedTransfer>
  /** Transfers to the account that no payout here names. */
  readonly others: ReadonlyArray<ReceivedTransfer>
  /** Newest month first, then by organization. */
  readonly totals: ReadonlyArray<MonthTotal>
}

/** The month a moment falls in, in the browser's own time zone. */
export const monthOf = (at: Date): string => `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, "0")}`

const monthLabel = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric" })

/**
 * The payouts and the transfers matched by transaction hash. A transaction holds one operation, so one transfer a
 * hash; should one hold more, each payout takes one of them and the rest are other transfers.
 */
export const reconcile = (payouts: ReadonlyArray<ContractorPayout>, received: ReadonlyArray<ReceivedTransfer>): Reconciled => {
  const unclaimed = new Map<string, Array<ReceivedTransfer>>()
  for (const r of received) unclaimed.set(r.txHash.toLowerCase(), [...(unclaimed.get(r.txHash.toLowerCase()) ?? []), r])
  const byPayout = new Map<string, ReceivedTransfer>()
  const groups = new Map<string, { month: string; label: string; company: string; payouts: number; total: bigint }>()
  for (const payout of payouts) {
    const hash = Option.getOrUndefined(payout.hash)?.toLowerCase()
    const transfer = hash === undefined ? undefined : unclaimed.get(hash)?.shift()
    if (transfer === undefined) continue
    byPayout.set(payout.id, transfer)
    const month = monthOf(transfer.closedAt)
    const key = `${month}\u0000${payout.company}`
    const group = groups.get(key) ?? { month, label: monthLabel.format(transfer.closedAt), company: payout.company, payouts: 0, total: 0n }
    groups.set(key, { ...group, payouts: group.payouts + 1, total: group.total + transfer.amount })
  }
  const others = [...unclaimed.values()].flat().sort((a, b) => b.closedAt.getTime() - a.closedAt.getTime())
  const totals = [...groups.values()].sort((a, b) => b.month.localeCompare(a.month) || a.company.localeCompare(b.company))
  return { byPayout, others, totals }
}
