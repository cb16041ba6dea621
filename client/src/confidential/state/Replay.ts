// Rebuilds the openings from the chain's events, mirroring how OpenZeppelin's contract moves the commitments
// (packages/tokens/src/confidential/storage.rs at 8af46e2c):
//
//   register                   both commitments := identity                  -> both openings := (0, 0)
//   deposit (to = A)           receiving += amount·G                         -> receiving += (amount, 0)
//   merge (A)                  spendable += receiving; receiving := identity -> the same on the openings
//   transfer, withdraw,        spendable := C_spend' (the proof binds it to  -> spendable := (decryptBalance(b_tilde,
//   set_spender, revoke_spender  Com(b, deriveSpendR(vk, sigma)) and b_tilde   sigma), deriveSpendR(vk, sigma)): a
//     (from / account = A)       to b: transfer/src/main.nr T10, T12)          checkpoint, it overwrites (SDK.md §10.2)
//   transfer (to = A)          receiving += C_tx                             -> receiving += decryptTransfer(R_e, v_tilde, sigma)
//   spender_transfer (to = A)  receiving += C_tx (padded with sigma_a)       -> receiving += decryptTransfer(R_e, v_tilde, sigma_a)
//
// At 8af46e2c `set_spender` and `revoke_spender` both write C_spend' with (b_tilde, sigma), so both are checkpoints;
// newer OZ makes `revoke_spender` a proofless fold (OpenZeppelin/stellar-contracts docs/sdk/wallet.md) — ArchiveEvents.ts refuses that shape. A
// self-transfer applies both roles (SDK.md §10.2). The SDK.md §10.2 obligations are all discharged here: events are
// ordered by (ledger, id), deduplicated by id, and an event at or before the state's cursor is skipped, so applying
// the same events twice changes nothing.
import { compareCursor, type Cursor, Opening, type Pending, type WalletState, ZERO } from "./Opening.ts"

interface EventBase {
  /** RPC's event id (`%019d-%010d`), the archive's too. */
  readonly id: string
  readonly ledger: number
  /** The emitting transaction, to settle a pending spend (Wallet.ts). */
  readonly txHash?: string
}

/** The recipient-channel ciphertext of a transfer: R_e (64-byte point), v_tilde and the salt (32-byte fields). */
export interface TransferCiphertext {
  readonly rE: Uint8Array
  readonly vTilde: Uint8Array
  readonly sigma: Uint8Array
}

/** A decoded event of the token (mod.rs "EVENTS" at 8af46e2c), the fields replay reads. */
export type ReplayEvent = EventBase & (
  | { readonly type: "register"; readonly account: string }
  | { readonly type: "deposit"; readonly from: string; readonly to: string; readonly amount: bigint }
  | { readonly type: "merge"; readonly account: string }
  | ({ readonly type: "transfer"; readonly from: string; readonly to: string; readonly bTilde: Uint8Array } & TransferCiphertext)
  | { readonly type: "withdraw"; readonly from: string; readonly to: string; readonly amount: bigint; readonly sigma: Uint8Array; readonly bTilde: Uint8Array }
  | ({ readonly type: "spender_transfer"; readonly spender: string; readonly from: string; readonly to: string } & TransferCiphertext)
  | { readonly type: "set_spender" | "revoke_spender"; readonly account: string; readonly spender: string; readonly sigma: Uint8Array; readonly bTilde: Uint8Array }
)

/**
 * The holder's decryptions, bound to its keys by whoever builds it (crypto/Primitives.ts: decryptTransfer,
 * decryptBalance, deriveSpendR), so that this layer never holds a key.
 */
export interface Decryptor {
  /** (v_transfer, r_transfer) of a transfer to the holder (wallet-state.md "Incoming transfer"). */
  transferIn(ciphertext: TransferCiphertext): { readonly amount: bigint; readonly blinding: bigint }
  /** The balance b_tilde encrypts under the holder's vk and sigma. */
  balance(bTilde: Uint8Array, sigma: Uint8Array): bigint
  /** Poseidon2(delta_spend_r, vk, sigma): the spendable blinding a checkpoint's proof wrote. */
  spendBlinding(sigma: Uint8Array): bigint
}

/** The events in the order they were emitted, each id once (the first seen). */
export const orderEvents = <E extends EventBase>(events: ReadonlyArray<E>): Array<E> => {
  const byId = new Map<string, E>()
  for (const event of events) if (!byId.has(event.id)) byId.set(event.id, event)
  return [...byId.values()].sort(compareCursor)
}

/** One event, for the holder `account`: the new (spendable, receiving). */
const apply = (account: string, state: WalletState, event: ReplayEvent, decryptor: Decryptor) => {
  let { spendable, receiving } = state
  const checkpoint = (sigma: Uint8Array, bTilde: Uint8Array) =>
    new Opening(decryptor.balance(bTilde, sigma), decryptor.spendBlinding(sigma))
  const credit = (c: TransferCiphertext) => {
    const { amount, blinding } = decryptor.transferIn({ rE: c.rE, vTilde: c.vTilde, sigma: c.sigma })
    return receiving.add(new Opening(amount, blinding))
  }
  switch (event.type) {
    case "register":
      if (event.account === account) [spendable, receiving] = [ZERO, ZERO]
      break
    case "deposit":
      if (event.to === account) receiving = receiving.add(new Opening(event.amount, 0n))
      break
    case "merge":
      if (event.account === account) [spendable, receiving] = [spendable.add(receiving), ZERO]
      break
    case "transfer":
      if (event.from === account) spendable = checkpoint(event.sigma, event.bTilde)
      if (event.to === account) receiving = credit(event)
      break
    case "withdraw":
      if (event.from === account) spendable = checkpoint(event.sigma, event.bTilde)
      break
    case "spender_transfer":
      if (event.to === account) receiving = credit(event)
      break
    case "set_spender":
    case "revoke_spender":
      if (event.account === account) spendable = checkpoint(event.sigma, event.bTilde)
      break
  }
  return { spendable, receiving }
}

/** The spends still pending once the event of `txHash` is applied: it, and those before it, have landed. */
const settle = (pending: ReadonlyArray<Pending>, txHash: string | undefined) => {
  const landed = txHash === undefined ? -1 : pending.findIndex((p) => p.txHash === txHash)
  return landed < 0 ? pending : pending.slice(landed + 1)
}

/**
 * Applies `events` (any order, duplicates allowed, events of other accounts ignored) after `state.cursor`. The
 * openings are not checked here: Consistency.ts compares them with the chain.
 */
export const applyEvents = (state: WalletState, events: ReadonlyArray<ReplayEvent>, decryptor: Decryptor): WalletState => {
  let next = state
  for (const event of orderEvents(events)) {
    if (next.cursor !== undefined && compareCursor(event, next.cursor) <= 0) continue
    const cursor: Cursor = { ledger: event.ledger, id: event.id }
    next = { ...next, ...apply(state.account, next, event, decryptor), cursor, pending: settle(next.pending, event.txHash) }
  }
  return next
}

/**
 * Where a recovery replays from (OpenZeppelin/stellar-contracts docs/protocol/wallet-state.md "Recovery"; the archive's checkpoint route gives the
 * anchor): both openings (0, 0) as of the anchor T_0, the account's latest merge at or before its latest checkpoint,
 * or its register. Replaying every later event from here is exact: the receiving side restarts at T_0, and the
 * spendable side is overwritten by the checkpoint before any merge could fold into it, since no merge lies between
 * T_0 and the checkpoint. Without a checkpoint T_0 is the register, which zeroes both anyway.
 */
export const recoveryStart = (account: string, contract: string, anchor: Cursor | undefined): WalletState =>
  ({ account, contract, spendable: ZERO, receiving: ZERO, cursor: anchor, pending: [] })
