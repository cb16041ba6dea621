// Typed errors of the wallet state (SDK.md §9.4, §10.6, §10.7 of OpenZeppelin/stellar-contracts' confidential token
// docs). They extend Error through `Data.TaggedError`, so Promise callers can check `_tag`. No message carries a value,
// a blinding or a key: only which balance, which event id, or why.
import { Data } from "effect"
import { StateMismatch } from "../Errors.ts"

export { StateMismatch }

/** One of the two accumulators of OpenZeppelin/stellar-contracts docs/protocol/wallet-state.md: W_spend and W_receive. */
export type Balance = "spendable" | "receiving"

/**
 * The local opening of a balance does not commit to the chain's point (SDK.md §10.6: a missed or duplicated event, an
 * in-flight operation the chain never saw, or a defect). Re-sync from the events and do not spend from this state.
 * The class is Errors.ts's; this names the accumulator(s) in its message, never a value.
 */
export const stateMismatch = (diverged: readonly [Balance, ...Array<Balance>]): StateMismatch =>
  new StateMismatch({
    accumulator: diverged[0],
    message: `the wallet's ${diverged.join(" and ")} opening${diverged.length > 1 ? "s do" : " does"} not match the ` +
      "on-chain commitment: re-sync before spending"
  })

/**
 * The spendable blinding, reduced mod q, is not below BN254's r, so no Noir `Field` can witness it (SDK.md §10.7,
 * OpenZeppelin/stellar-contracts docs/sdk/wallet.md "The unspendable-blinding case"). It clears at the next merge that folds in an inbound
 * confidential transfer; deposits alone do not clear it.
 */
export class UnspendableBlinding extends Data.TaggedError("UnspendableBlinding")<{}> {
  override get message() {
    return "the spendable balance's blinding cannot be witnessed by a proof: merge after receiving a confidential " +
      "transfer (a deposit alone does not help)"
  }
}

/** Why sealed wallet state did not open. */
export type SealedStateProblem = "wrong-key-or-altered" | "unknown-format" | "malformed"

/** Sealed wallet state that does not open: a wrong key, another account or contract, or altered bytes. */
export class SealedStateInvalid extends Data.TaggedError("SealedStateInvalid")<{ readonly problem: SealedStateProblem }> {
  override get message() {
    return this.problem === "wrong-key-or-altered"
      ? "the sealed wallet state does not open with this key, account and contract, or was altered"
      : this.problem === "unknown-format"
      ? "the sealed wallet state is of an unknown format version"
      : "the sealed wallet state opened but does not hold a wallet state"
  }
}

/** An archived event that cannot be read as the pinned token's (8af46e2c) event, named by its id. */
export class ArchiveEventInvalid extends Data.TaggedError("ArchiveEventInvalid")<{ readonly id: string; readonly reason: string }> {
  override get message() {
    return `archived event ${this.id}: ${this.reason}`
  }
}
