// One payout's verdict against the chain, the rule the console's reconciliation (console/src/confidential/Reconcile.ts)
// and the CLI's (client/src/payroll/Reconcile.ts) share: its opened receipt, the transfer found among the
// contractor's events by σ, its ciphertext recomputed from the receipt and the contractor's viewing key on chain
// (checkReceipt), and the receipt's amount against the approved one.
import { checkReceipt, type TransferReceipt } from "../crypto/Receipt.ts"
import type { ReplayEvent } from "./Replay.ts"

export type Verdict =
  | { readonly kind: "paid-as-approved" }
  | { readonly kind: "mismatch"; readonly why: string }
  | { readonly kind: "unchecked"; readonly why: string }

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
const sigmaHex = (sigma: bigint) => sigma.toString(16).padStart(64, "0")

export interface VerdictInput {
  readonly receipt: TransferReceipt
  /** The contractor's address (G…), where the transfer went. */
  readonly to: string
  /** The contractor's registered viewing key, undefined when the account is not on chain. */
  readonly viewingPublicKey: Uint8Array | undefined
  /** The contractor's events, from the archive or Stellar RPC. */
  readonly events: ReadonlyArray<ReplayEvent>
  /** The approved amount, from the batch's sealed amounts. */
  readonly approved: bigint | undefined
  /** How an amount is written in a verdict ("12.5000000"). */
  readonly format: (amount: bigint) => string
}

export const payoutVerdict = ({ approved, events, format, receipt, to, viewingPublicKey }: VerdictInput): Verdict => {
  const transfer = events.find((e) =>
    (e.type === "transfer" || e.type === "spender_transfer") && e.to === to && hex(e.sigma) === sigmaHex(receipt.sigma))
  if (viewingPublicKey === undefined || transfer === undefined || (transfer.type !== "transfer" && transfer.type !== "spender_transfer")) {
    return { kind: "unchecked", why: "its transfer is not in the archive yet" }
  }
  const check = checkReceipt(receipt, viewingPublicKey, transfer)
  if (check !== "match") return { kind: "mismatch", why: `the transfer on chain does not match its receipt (${check})` }
  if (approved === undefined || receipt.amount !== approved) {
    return { kind: "mismatch", why: `${format(receipt.amount)} USDC paid, ${approved === undefined ? "no amount" : `${format(approved)} USDC`} approved` }
  }
  return { kind: "paid-as-approved" }
}
