import { Address, xdr } from "@stellar/stellar-sdk"

// The token's events, by version: OpenZeppelin/stellar-contracts packages/tokens/src/confidential/mod.rs "EVENTS" at
// 8af46e2c (the archive's first reference) and at 0fd261c2 (#853: `r_tilde_aud_s` on withdraw, transfer and
// spender_transfer; #854: `revoke_spender` proofless, `{a_tilde, allowance_salt}`), with compliance/mod.rs at
// 0fd261c2 (#855/#872: `clawback`, `frozen`, `unfrozen`, `compliance_config_changed`). Roles: docs/indexer.md "Events
// in scope" and protocol/wallet-state.md "Recovery" at 21fa38d1 / 3a58cee2.

/** Events that publish `(b_tilde, sigma)` for their first address topic's spendable balance in every version. */
const CHECKPOINT_TYPES: ReadonlySet<string> = new Set(["withdraw", "transfer", "set_spender"])

/** `revoke_spender` was a checkpoint while it carried a proof's `(b_tilde, sigma)` (8af46e2c); since #854 it is a fold. */
const SHAPED_CHECKPOINT_TYPES: ReadonlySet<string> = new Set(["revoke_spender"])

/** Where a replay starts (wallet-state.md "Recovery" step 5, `T_0`): the last of these at or before the checkpoint. */
export const ANCHOR_TYPES: ReadonlyArray<string> = ["merge", "clawback"]

/** `T_0` when the account has no merge or clawback before its checkpoint, or no checkpoint at all. */
export const START_TYPE = "register"

export interface Attributed {
  /** The event's name: its first topic, a symbol (`#[contractevent]` puts the struct's snake_case name there). */
  readonly type: string
  /** Every account (G…) or contract (C…) address in the topics, once each, and whether the event is its checkpoint. */
  readonly accounts: ReadonlyArray<{ readonly account: string; readonly checkpoint: boolean }>
}

const decode = (encoded: string): xdr.ScVal | undefined => {
  try {
    return xdr.ScVal.fromXdr(encoded, "base64")
  } catch {
    return undefined
  }
}

/** The event's name alone (its first topic), without reading the rest. */
export const eventType = (topics: ReadonlyArray<string>): string => {
  const first = topics[0] === undefined ? undefined : decode(topics[0])
  return first?.type === "scvSymbol" ? first.sym.toString() : ""
}

/** Whether the data (a `#[contractevent]` map keyed by field name) carries both `b_tilde` and `sigma`. */
const carriesBalanceCheckpoint = (value: string): boolean => {
  const data = decode(value)
  if (data?.type !== "scvMap") return false
  const keys = new Set((data.map ?? []).map((entry) => entry.key.type === "scvSymbol" ? entry.key.sym.toString() : ""))
  return keys.has("b_tilde") && keys.has("sigma")
}

/** Whether an event of this name is a checkpoint, judged by its own shape (its data), never by a setting. */
const isCheckpoint = (type: string, value: string): boolean =>
  CHECKPOINT_TYPES.has(type) || (SHAPED_CHECKPOINT_TYPES.has(type) && carriesBalanceCheckpoint(value))

/**
 * Attribution is a pure function of the event (indexer.md "Account attribution"): every address in the topics, never
 * the transaction's source account. The event is a checkpoint of its first `#[topic]` field only — `from` of withdraw
 * and transfer (the sender side), `account` of set_spender and of an old-shape revoke_spender.
 */
export const attribute = (topics: ReadonlyArray<string>, value: string): Attributed => {
  const values = topics.map(decode)
  const first = values[0]
  const type = first?.type === "scvSymbol" ? first.sym.toString() : ""
  const checkpoint = values.length > 1 && isCheckpoint(type, value)
  const accounts = new Map<string, boolean>()
  values.forEach((topic, position) => {
    if (topic?.type !== "scvAddress") return
    const kind = topic.address.type
    if (kind !== "scAddressTypeAccount" && kind !== "scAddressTypeContract") return
    const account = Address.fromScAddress(topic.address).toString()
    accounts.set(account, (accounts.get(account) ?? false) || (position === 1 && checkpoint))
  })
  return { type, accounts: [...accounts].map(([account, checkpoint]) => ({ account, checkpoint })) }
}

/** Whether the event is `account`'s checkpoint (read again from the event itself, whatever its row was flagged). */
export const isCheckpointOf = (event: { readonly topics: ReadonlyArray<string>; readonly value: string }, account: string) =>
  attribute(event.topics, event.value).accounts.some((a) => a.account === account && a.checkpoint)
