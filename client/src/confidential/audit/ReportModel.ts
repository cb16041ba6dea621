// The auditor's report (issue 36 §3): one row per operation of the organization's paying wallets in the period, the
// totals an accountant books, and the checks. Amounts are in the token's units (7 decimals), as exact bigints.

/** A paying wallet's operations as rows: its own proven ones, and what moved its receiving balance. */
export type OperationKind =
  | "transfer" // confidential_transfer it sent
  | "withdraw"
  | "set_spender" // escrow into an allowance
  | "revoke_spender" // the allowance reclaimed
  | "spender_transfer" // a spender paid out of its allowance
  | "deposit" // public amount into its receiving balance
  | "transfer_in" // a confidential transfer it received (the recipient-auditor channel)
  | "merge" // its receiving balance folded into the spendable one

/** A checkpoint's balance against the previous one moved by what happened in between (Continuity.ts). */
export type Continuity =
  | { readonly status: "continuous" }
  | { readonly status: "breaks"; readonly expected: bigint }
  | { readonly status: "unchecked"; readonly reason: "no earlier checkpoint" | "an earlier amount is unknown" }

export type PayoutMatch =
  | {
    readonly kind: "payout"
    readonly payoutId: string
    readonly batchId: string
    readonly contractorId: string
    readonly contractorName?: string
  }
  | { readonly kind: "not a payout here" }

/** The opened sealed receipt of the payout against the event: same σ and R_e = r_e·H, then the amounts. */
export type ReceiptComparison =
  | { readonly status: "matches" }
  | { readonly status: "differs"; readonly what: "amount" | "sigma" | "ephemeral"; readonly receiptAmount: bigint }

export interface AuditRow {
  readonly eventId: string
  readonly ledger: number
  /** The ledger's close, ISO 8601 UTC. */
  readonly closedAt: string
  readonly txHash: string
  readonly wallet: string
  readonly kind: OperationKind
  /** The other party: recipient, sender, spender, or the withdrawal's public address. */
  readonly counterparty?: string
  /** Undefined when the ciphertext did not open under the key. */
  readonly amount?: bigint
  /** "public" for deposits and withdrawals' amounts, "derived" for a merge's (the receiving balance it folded). */
  readonly amountSource: "decrypted" | "public" | "derived"
  /** The spendable balance after it (for a spender_transfer, the allowance left), where known. */
  readonly balanceAfter?: bigint
  readonly continuity?: Continuity
  /** False when the escrow key opened nothing of this event's channel. */
  readonly decrypted: boolean
  readonly match: PayoutMatch
  readonly receipt?: ReceiptComparison
}

export interface Sum {
  readonly count: number
  readonly total: bigint
}

export interface ContractorTotal {
  readonly contractorId: string
  readonly contractorName?: string
  readonly paid: Sum
  /** Payout transfers whose amount did not open under the key (not in `paid`). */
  readonly undecryptable: number
}

/** One UTC calendar month of the period. */
export interface MonthTotal {
  /** "YYYY-MM". */
  readonly month: string
  readonly payouts: Sum
  readonly otherTransfers: Sum
  readonly withdrawals: Sum
  readonly deposits: Sum
  readonly received: Sum
}

export interface WalletSummary {
  readonly wallet: string
  /** Spendable balance at the period's start and end, where the events let the auditor know it. */
  readonly openingSpendable?: bigint
  readonly closingSpendable?: bigint
  readonly checkpoints: number
  readonly breaks: number
  readonly unchecked: number
  readonly undecryptable: number
}

export interface AuditReport {
  /** [from, to), ISO 8601 UTC. */
  readonly period: { readonly from: string; readonly to: string }
  readonly wallets: ReadonlyArray<WalletSummary>
  readonly rows: ReadonlyArray<AuditRow>
  readonly contractors: ReadonlyArray<ContractorTotal>
  readonly months: ReadonlyArray<MonthTotal>
  readonly checks: {
    /** k·H against the auditor key the caller expects (the registry's), when given. */
    readonly keyMatches?: boolean
    readonly breaks: number
    readonly undecryptable: number
    readonly receiptsMatch: number
    readonly receiptsDiffer: number
  }
  /** Events that could not be read (a newer token version, malformed XDR): id and why. */
  readonly unreadable: ReadonlyArray<{ readonly id: string; readonly reason: string }>
}
