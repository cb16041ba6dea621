// The consistency check (SDK.md §10.6; OpenZeppelin/stellar-contracts docs/protocol/wallet-state.md "Consistency check"): re-commit each opening and
// compare with the account's on-chain commitment, after every sync and before every proof. Pedersen commitments bind,
// so a missed, duplicated or forged event shows here as a mismatch instead of a plausible wrong balance.
import { Either } from "effect"
import type { Opening, WalletState } from "./Opening.ts"
import { type Balance, type StateMismatch, stateMismatch } from "./StateErrors.ts"

/** commit(v, r) = v·G + r·H as 64 bytes x‖y, the identity as 64 zero bytes (crypto/Grumpkin.ts commit + pointToBytes). */
export type Commit = (value: bigint, blinding: bigint) => Uint8Array

/** The identity point as storage.rs stores it (contract-utils grumpkin.rs: all 64 bytes zero). */
export const IDENTITY: Uint8Array = new Uint8Array(64)

/** The commitments of mod.rs `ConfidentialAccount` (`confidential_balance`), each 64 bytes x‖y. */
export interface OnChainCommitments {
  readonly spendableCommitment: Uint8Array
  readonly receivingCommitment: Uint8Array
}

export const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i])

export const commitOpening = (commit: Commit, opening: Opening): Uint8Array => commit(opening.value, opening.blinding)

/** Whether `opening` opens `commitment`. */
export const opens = (commit: Commit, opening: Opening, commitment: Uint8Array): boolean =>
  bytesEqual(commitOpening(commit, opening), commitment)

/**
 * Both openings against the chain. The error's `accumulator` is the first that diverged (spendable before receiving);
 * its message names every one that did. Never a value.
 */
export const checkConsistency = (state: WalletState, chain: OnChainCommitments, commit: Commit): Either.Either<WalletState, StateMismatch> => {
  const diverged: Array<Balance> = []
  if (!opens(commit, state.spendable, chain.spendableCommitment)) diverged.push("spendable")
  if (!opens(commit, state.receiving, chain.receivingCommitment)) diverged.push("receiving")
  const [first, ...rest] = diverged
  return first === undefined ? Either.right(state) : Either.left(stateMismatch([first, ...rest]))
}
