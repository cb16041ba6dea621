// The auditor's report over a period (issue 36 §3), pure: from the token's public events (the service's archive or
// any Stellar RPC), the organization's escrow key and the product's payout records, with nothing asked of the service.
// Events before the period only build up the balances its first checkpoints are checked against: pass the wallets'
// history from their register for every checkpoint to be checked (Continuity.ts).
import { DecryptionFailed, InvalidWitness, KeyDerivationFailed } from "../Errors.ts"
import { auditorSharedSecret } from "../crypto/AuditorChannel.ts"
import { R } from "../crypto/Field.ts"
import { H, scalarMul, type GrumpkinPoint } from "../crypto/Grumpkin.ts"
import { orderEvents } from "../state/Replay.ts"
import { ArchiveEventInvalid } from "../state/StateErrors.ts"
import { type AuditEvent, decodeAuditEvent, type ProvenEvent, type RawTokenEvent } from "./AuditEvent.ts"
import { WalletBalances } from "./Continuity.ts"
import { compareReceipt, type OpenedReceipt } from "./ReceiptCompare.ts"
import type { AuditReport, AuditRow, PayoutMatch, WalletSummary } from "./ReportModel.ts"
import { openRecipientChannel, openSenderChannel, type SenderAuditorOpening } from "./SenderAuditor.ts"
import { contractorTotals, monthTotals } from "./Totals.ts"

/** A payout the product sent (client Contract's `Payout`: id, batchId, contractorId, and its `hash`). */
export interface AuditPayout {
  readonly payoutId: string
  readonly batchId: string
  readonly contractorId: string
  readonly contractorName?: string
  /** The hash of the transaction that paid it (the fee-bump's, as the archive's `txHash` is). */
  readonly transactionHash: string
}

/**
 * One escrow key of a rotated auditor id and the ledgers it was the registry's key for ([fromLedger, untilLedger),
 * either end open): DESIGN_cont.md §8.3's off-chain obligation, the old secret kept for the events before.
 */
export interface AuditorSecretSpan {
  readonly secret: bigint
  readonly fromLedger?: number
  readonly untilLedger?: number
}

export interface AuditInput {
  /** The token's events, any order, duplicates allowed: at least those of the wallets up to `period.to`. */
  readonly events: ReadonlyArray<RawTokenEvent>
  /** k, with K_aud = k·H the key registered under the wallets' auditor id; or `auditorSecrets`, for a rotated one. */
  readonly auditorSecret?: bigint
  /**
   * Every key the auditor id had: an event is opened with the key of its ledger first, then with the others (a
   * rotation's ledger may be recorded late, and a wrong key opens nothing: SenderAuditor.ts).
   */
  readonly auditorSecrets?: ReadonlyArray<AuditorSecretSpan>
  /** K_aud as the auditor registry holds it now: the current (last) k is checked against it when given. */
  readonly auditorKey?: GrumpkinPoint
  /** The organization's paying wallets (G… addresses). */
  readonly wallets: ReadonlyArray<string>
  readonly period: { readonly from: Date; readonly to: Date }
  readonly payouts: ReadonlyArray<AuditPayout>
  /** The payouts' sealed receipts, opened by the caller (sealing/SealedReceipt.ts openReceipt). */
  readonly receipts?: ReadonlyArray<OpenedReceipt>
}

const NOT_A_PAYOUT: PayoutMatch = { kind: "not a payout here" }

/** The shared secret of an event whose channel the key does not open (R_e the identity) is no secret at all. */
const attempt = <A>(open: () => A): A | undefined => {
  try {
    return open()
  } catch (error) {
    if (error instanceof DecryptionFailed || error instanceof InvalidWitness) return undefined
    throw error
  }
}

const decodeAll = (raw: ReadonlyArray<RawTokenEvent>) => {
  const events: Array<AuditEvent> = []
  const unreadable: Array<{ id: string; reason: string }> = []
  for (const event of raw) {
    try {
      const decoded = decodeAuditEvent(event)
      if (decoded !== undefined) events.push(decoded)
    } catch (error) {
      if (!(error instanceof ArchiveEventInvalid)) throw error
      unreadable.push({ id: error.id, reason: error.reason })
    }
  }
  return { events: orderEvents(events), unreadable }
}

const spansOf = (input: AuditInput): ReadonlyArray<AuditorSecretSpan> => {
  const spans = input.auditorSecrets ?? (input.auditorSecret === undefined ? [] : [{ secret: input.auditorSecret }])
  if (spans.length === 0) throw new KeyDerivationFailed({ reason: "SecretOutOfRange", message: "no auditor secret was given" })
  // A zero k would make every channel "not open" rather than say what is wrong.
  if (spans.some(({ secret }) => secret <= 0n || secret >= R)) {
    throw new KeyDerivationFailed({ reason: "SecretOutOfRange", message: "the auditor secret is not in [1, r)" })
  }
  return spans
}

/** The secrets to try for an event of `ledger`: the one current then first. */
const secretsFor = (spans: ReadonlyArray<AuditorSecretSpan>, ledger: number): ReadonlyArray<bigint> => {
  const current = (s: AuditorSecretSpan) => (s.fromLedger ?? 0) <= ledger && ledger < (s.untilLedger ?? Number.POSITIVE_INFINITY)
  return [...spans.filter(current), ...spans.filter((s) => !current(s))].map((s) => s.secret)
}

export const auditReport = (input: AuditInput): AuditReport => {
  const spans = spansOf(input)
  const from = input.period.from.getTime()
  const to = input.period.to.getTime()
  const wallets = new Set(input.wallets)
  const balances = new Map(input.wallets.map((w) => [w, new WalletBalances()]))
  const balancesOf = (w: string) => balances.get(w)!
  const payoutByHash = new Map(input.payouts.map((p) => [p.transactionHash.toLowerCase(), p]))
  const receiptByPayout = new Map((input.receipts ?? []).map((r) => [r.payoutId, r]))
  const { events, unreadable } = decodeAll(input.events)
  const rows: Array<AuditRow> = []
  let opening: Map<string, bigint | undefined> | undefined

  for (const event of events) {
    const at = Date.parse(event.closedAt)
    if (at >= to) break
    if (at >= from && opening === undefined) opening = new Map(input.wallets.map((w) => [w, balancesOf(w).spendable]))
    const inPeriod = at >= from
    const base = { eventId: event.id, ledger: event.ledger, closedAt: event.closedAt, txHash: event.txHash, match: NOT_A_PAYOUT }
    const push = (row: AuditRow) => {
      if (inPeriod) rows.push(row)
    }
    const secrets = secretsFor(spans, event.ledger)
    const shared = new Map<bigint, bigint>()
    const sharedWith = (k: bigint, e: ProvenEvent) => {
      let s = shared.get(k)
      if (s === undefined) shared.set(k, s = auditorSharedSecret(k, e.rE))
      return s
    }
    const firstOpening = <A>(open: (s: bigint) => A): A | undefined => {
      for (const k of secrets) {
        const opened = attempt(() => open(k))
        if (opened !== undefined) return opened
      }
      return undefined
    }
    const sender = (e: ProvenEvent): SenderAuditorOpening | undefined => firstOpening((k) => openSenderChannel(sharedWith(k, e), e))
    const incoming = (e: Extract<AuditEvent, { type: "transfer" | "spender_transfer" }>) => {
      if (!wallets.has(e.to)) return
      const amount = firstOpening((k) => openRecipientChannel(sharedWith(k, e), e))
      balancesOf(e.to).credit(amount)
      const counterparty = e.type === "transfer" ? e.from : e.spender
      push({
        ...base, wallet: e.to, kind: "transfer_in", counterparty, amountSource: "decrypted", decrypted: amount !== undefined,
        ...(amount === undefined ? {} : { amount })
      })
    }
    const opened = (o: SenderAuditorOpening | undefined) =>
      o === undefined ? {} : { amount: o.amount, balanceAfter: o.balanceAfter }

    switch (event.type) {
      case "register":
        if (wallets.has(event.account)) balancesOf(event.account).registered()
        break
      case "deposit":
        if (!wallets.has(event.to)) break
        balancesOf(event.to).credit(event.amount)
        push({ ...base, wallet: event.to, kind: "deposit", counterparty: event.from, amount: event.amount, amountSource: "public", decrypted: true })
        break
      case "merge": {
        if (!wallets.has(event.account)) break
        const wallet = balancesOf(event.account)
        const folded = wallet.merge()
        const after = wallet.spendable
        push({
          ...base, wallet: event.account, kind: "merge", amountSource: "derived", decrypted: true,
          ...(folded === undefined ? {} : { amount: folded }), ...(after === undefined ? {} : { balanceAfter: after })
        })
        break
      }
      case "transfer": {
        if (wallets.has(event.from)) {
          const o = sender(event)
          const continuity = balancesOf(event.from).checkpoint(-1n, o)
          const payout = payoutByHash.get(event.txHash.toLowerCase())
          const match: PayoutMatch = payout === undefined ? NOT_A_PAYOUT : {
            kind: "payout", payoutId: payout.payoutId, batchId: payout.batchId, contractorId: payout.contractorId,
            ...(payout.contractorName === undefined ? {} : { contractorName: payout.contractorName })
          }
          const receipt = payout === undefined ? undefined : receiptByPayout.get(payout.payoutId)
          push({
            ...base, match, wallet: event.from, kind: "transfer", counterparty: event.to, amountSource: "decrypted",
            decrypted: o !== undefined, ...opened(o), ...(continuity === undefined ? {} : { continuity }),
            ...(receipt === undefined || o === undefined ? {} : { receipt: compareReceipt(receipt, event, o.amount) })
          })
        }
        incoming(event)
        break
      }
      case "spender_transfer": {
        if (wallets.has(event.from)) {
          const o = sender(event)
          const continuity = balancesOf(event.from).spentAllowance(event.spender, o)
          push({
            ...base, wallet: event.from, kind: "spender_transfer", counterparty: event.to, amountSource: "decrypted",
            decrypted: o !== undefined, ...opened(o), ...(continuity === undefined ? {} : { continuity })
          })
        }
        incoming(event)
        break
      }
      case "withdraw":
      case "set_spender":
      case "revoke_spender": {
        const wallet = event.type === "withdraw" ? event.from : event.account
        if (!wallets.has(wallet)) break
        const o = sender(event)
        const continuity = balancesOf(wallet).checkpoint(event.type === "revoke_spender" ? 1n : -1n, o)
        if (event.type === "set_spender") balancesOf(wallet).setSpender(event.spender, o?.amount)
        if (event.type === "revoke_spender") balancesOf(wallet).revokeSpender(event.spender)
        push({
          ...base, wallet, kind: event.type, counterparty: event.type === "withdraw" ? event.to : event.spender,
          amountSource: event.type === "withdraw" ? "public" : "decrypted", decrypted: o !== undefined,
          ...(event.type === "withdraw" ? { amount: event.amount } : {}), ...opened(o),
          ...(continuity === undefined ? {} : { continuity })
        })
        break
      }
    }
  }
  opening ??= new Map(input.wallets.map((w) => [w, balancesOf(w).spendable]))

  const summaries: Array<WalletSummary> = input.wallets.map((wallet) => {
    const own = rows.filter((r) => r.wallet === wallet)
    const checked = own.filter((r) => r.continuity !== undefined)
    const openingSpendable = opening.get(wallet)
    const closingSpendable = balancesOf(wallet).spendable
    return {
      wallet,
      ...(openingSpendable === undefined ? {} : { openingSpendable }),
      ...(closingSpendable === undefined ? {} : { closingSpendable }),
      checkpoints: checked.length,
      breaks: checked.filter((r) => r.continuity?.status === "breaks").length,
      unchecked: checked.filter((r) => r.continuity?.status === "unchecked").length,
      undecryptable: own.filter((r) => !r.decrypted).length
    }
  })
  const receipts = rows.flatMap((r) => (r.receipt === undefined ? [] : [r.receipt.status]))
  return {
    period: { from: input.period.from.toISOString(), to: input.period.to.toISOString() },
    wallets: summaries,
    rows,
    contractors: contractorTotals(rows),
    months: monthTotals(rows),
    checks: {
      ...(input.auditorKey === undefined ? {} : { keyMatches: scalarMul(spans[spans.length - 1]!.secret, H).equals(input.auditorKey) }),
      breaks: summaries.reduce((n, s) => n + s.breaks, 0),
      undecryptable: summaries.reduce((n, s) => n + s.undecryptable, 0),
      receiptsMatch: receipts.filter((s) => s === "matches").length,
      receiptsDiffer: receipts.filter((s) => s === "differs").length
    },
    unreadable
  }
}
