// Spending from a wallet state, and keeping it. The chaining rule for consecutive spends from one account (SDK.md
// §10.3 "In-flight operations": a wallet MAY project the post-operation opening, and MUST reconcile it with the chain):
//
// 1. After a proof is built and BEFORE its transaction is submitted, the spend is recorded as pending — the opening
//    and commitment C_spend' it writes, and the C_spend it was proven on (`basedOn`) — and the state is persisted. A
//    crash between submission and its event then cannot lose the new opening: the contract overwrites C_spend with
//    C_spend' (storage.rs `set_spendable`), and only this wallet knows its opening until the event is replayed.
// 2. The next spend proves on the newest pending opening while the chain's spendable commitment is one the pending
//    chain passes through: a pending one's `basedOn` (still in flight) or `commitment` (landed; those up to it are
//    settled into the confirmed spendable opening).
// 3. A pending spend whose `basedOn` the chain still holds after its last valid ledger never lands: it is dropped,
//    with those proven on it. Any other chain commitment is a StateMismatch: re-sync from the events.
// 4. Replaying the event of a pending spend's transaction settles it (Replay.ts).
import { bn254_Fr } from "@noble/curves/bn254.js"
import { Either } from "effect"
import { type Commit, bytesEqual, commitOpening, opens } from "./Consistency.ts"
import { type Opening, type Pending, type WalletState } from "./Opening.ts"
import type { Sealer } from "./SealedState.ts"
import { type StateMismatch, stateMismatch, UnspendableBlinding } from "./StateErrors.ts"
import { type WalletStore, walletStateKey } from "./Store.ts"

/** The account's spendable commitment as the chain holds it, read at `ledger`. */
export interface ChainSpendable {
  readonly commitment: Uint8Array
  readonly ledger: number
}

/** What the next proof spends: the opening, its commitment (the proof's C_spend), and the reconciled state to keep. */
export interface SpendBase {
  readonly state: WalletState
  readonly opening: Opening
  readonly commitment: Uint8Array
}

const mismatch = () => Either.left(stateMismatch(["spendable"]))

/** Rules 2 and 3: the opening the next spend proves on. */
export const spendBase = (state: WalletState, chain: ChainSpendable, commit: Commit): Either.Either<SpendBase, StateMismatch | UnspendableBlinding> => {
  let next = state
  // The newest pending spend the chain has reached: its effect is confirmed, and it and those before it settle.
  const landed = next.pending.findLastIndex((p) => bytesEqual(p.commitment, chain.commitment))
  if (landed >= 0) next = { ...next, spendable: next.pending[landed]!.opening, pending: next.pending.slice(landed + 1) }
  const first = next.pending[0]
  if (first !== undefined) {
    if (!bytesEqual(first.basedOn, chain.commitment)) return mismatch()
    if (chain.ledger > first.validUntilLedger) next = { ...next, pending: [] }
  }
  const newest = next.pending.at(-1)
  const opening = newest?.opening ?? next.spendable
  const commitment = newest?.commitment ?? commitOpening(commit, next.spendable)
  if (newest === undefined && !bytesEqual(commitment, chain.commitment)) return mismatch()
  // SDK.md §10.7: the blinding (kept mod q, Opening.ts) must be a Noir Field, below r, for a circuit to witness it.
  if (opening.blinding >= bn254_Fr.ORDER) return Either.left(new UnspendableBlinding())
  return Either.right({ state: next, opening, commitment })
}

/** Rule 1: `base` with the spend just proven on it; persist the result before submitting the transaction. */
export const addPending = (base: SpendBase, pending: Pending, commit: Commit): Either.Either<WalletState, StateMismatch> =>
  bytesEqual(pending.basedOn, base.commitment) && opens(commit, pending.opening, pending.commitment)
    ? Either.right({ ...base.state, pending: [...base.state.pending, pending] })
    : mismatch()

/** One account's sealed state in a store. */
export interface WalletStateStore {
  load(): Promise<WalletState | undefined>
  save(state: WalletState): Promise<void>
}

export const walletStateStore = (store: WalletStore, sealer: Sealer): WalletStateStore => {
  const key = walletStateKey(sealer.contract, sealer.account)
  return {
    load: async () => {
      const bytes = await store.get(key)
      return bytes === undefined ? undefined : sealer.unseal(bytes)
    },
    save: async (state) => store.put(key, await sealer.seal(state))
  }
}

/** Rule 1 in one step: records the pending spend on `base` and persists it; submit only once this resolves. */
export const persistPending = async (
  stateStore: WalletStateStore,
  base: SpendBase,
  pending: Pending,
  commit: Commit
): Promise<WalletState> => {
  const next = Either.getOrThrowWith(addPending(base, pending, commit), (error) => error)
  await stateStore.save(next)
  return next
}
