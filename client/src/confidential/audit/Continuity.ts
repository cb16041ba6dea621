// What the escrow key lets the auditor know of one wallet's balances, event after event, and the continuity check of
// each checkpoint. It mirrors how the 8af46e2c contract moves the commitments (storage.rs; state/Replay.ts has the
// owner's version of the same table), with values only, since the sender auditor never learns a blinding:
//
//   register                 spendable := 0, receiving := 0
//   deposit (to = w)         receiving += amount                       public (Deposit.amount)
//   transfer / spender_transfer (to = w)
//                            receiving += v_tx                         recipient-auditor channel: w's auditor id is
//                                                                      the organization's, so K_aud_r is the escrow key
//   merge (w)                spendable += receiving, receiving := 0    derived: the auditor sums what it saw
//   transfer (from = w)      spendable := b, expect b = prev - v_tx    sender-auditor channel (T_a7, T_a8)
//   withdraw (from = w)      spendable := b, expect b = prev - a       a public, b from W_a4
//   set_spender (w)          spendable := b, expect b = prev - v_a     S_a4, S_a5; allowance(spender) := v_a
//   revoke_spender (w)       spendable := b, expect b = prev + v_a     V_a4, V_a5; the allowance is gone
//   spender_transfer (from = w)
//                            allowance := a', expect a' = prev - v_tx  O_a7, O_a8 (the spendable is untouched)
//
// A checkpoint is checked only against a known previous value: from a register, or from an earlier checkpoint with
// every receiving credit folded in since then known. The first checkpoint of a history that starts after the
// register, and any after an amount that did not open, are "unchecked" and re-anchor the chain (DESIGN_cont.md §8.2:
// "the balance checkpoint is self-contained").
import type { Continuity } from "./ReportModel.ts"

type Known = bigint | "none" | "unknown"

const reasonOf = (k: Exclude<Known, bigint>): Extract<Continuity, { status: "unchecked" }>["reason"] =>
  k === "none" ? "no earlier checkpoint" : "an earlier amount is unknown"

const plus = (a: Known, b: bigint | undefined): Known =>
  typeof a === "bigint" && b !== undefined ? a + b : a === "none" ? "none" : "unknown"

const check = (previous: Known, move: (p: bigint) => bigint, after: bigint): Continuity => {
  if (typeof previous !== "bigint") return { status: "unchecked", reason: reasonOf(previous) }
  const expected = move(previous)
  return expected === after ? { status: "continuous" } : { status: "breaks", expected }
}

export class WalletBalances {
  #spendable: Known = "none"
  #receiving: Known = "none"
  readonly #allowances = new Map<string, Known>()

  /** Where the spendable balance is known. */
  get spendable(): bigint | undefined {
    return typeof this.#spendable === "bigint" ? this.#spendable : undefined
  }

  registered(): void {
    this.#spendable = 0n
    this.#receiving = 0n
    this.#allowances.clear()
  }

  /** A deposit or an incoming transfer; `undefined` when its amount did not open. */
  credit(amount: bigint | undefined): void {
    this.#receiving = plus(this.#receiving, amount)
  }

  /** The merge: returns what it folded, where known. */
  merge(): bigint | undefined {
    const folded = this.#receiving
    this.#spendable = typeof this.#spendable === "bigint" && typeof folded === "bigint"
      ? this.#spendable + folded
      : this.#spendable === "none" ? "none" : "unknown"
    this.#receiving = 0n
    return typeof folded === "bigint" ? folded : undefined
  }

  /**
   * A spendable checkpoint: `sign` -1 when the operation spends `amount`, +1 when it returns it (revoke_spender).
   * `opened` undefined when the ciphertexts did not open: the balance is unknown from here to the next checkpoint.
   */
  checkpoint(sign: -1n | 1n, opened: { readonly amount: bigint; readonly balanceAfter: bigint } | undefined): Continuity | undefined {
    if (opened === undefined) {
      this.#spendable = "unknown"
      return undefined
    }
    const continuity = check(this.#spendable, (p) => p + sign * opened.amount, opened.balanceAfter)
    this.#spendable = opened.balanceAfter
    return continuity
  }

  setSpender(spender: string, escrowed: bigint | undefined): void {
    this.#allowances.set(spender, escrowed ?? "unknown")
  }

  revokeSpender(spender: string): void {
    this.#allowances.delete(spender)
  }

  /** A spender's transfer out of the allowance: its allowance-after against the previous one less the amount. */
  spentAllowance(spender: string, opened: { readonly amount: bigint; readonly balanceAfter: bigint } | undefined): Continuity | undefined {
    if (opened === undefined) {
      this.#allowances.set(spender, "unknown")
      return undefined
    }
    const continuity = check(this.#allowances.get(spender) ?? "none", (p) => p - opened.amount, opened.balanceAfter)
    this.#allowances.set(spender, opened.balanceAfter)
    return continuity
  }
}
