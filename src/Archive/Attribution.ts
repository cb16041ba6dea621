import { Address, xdr } from "@stellar/stellar-sdk"

/**
 * The checkpoint events (INDEXER.md §2, DESIGN_cont.md §9.5): `withdraw`, `transfer`, `set_spender`, `revoke_spender`,
 * each a checkpoint of the account in its first `#[topic]` field only (`from` of withdraw and transfer — the sender
 * side —, `account` of set_spender and revoke_spender).
 */
export const CHECKPOINT_TYPES: ReadonlySet<string> = new Set(["withdraw", "transfer", "set_spender", "revoke_spender"])

export interface Attributed {
  /** The event's name: its first topic, a symbol (`#[contractevent]` puts the struct's snake_case name there). */
  readonly type: string
  /** Every account (G…) or contract (C…) address in the topics, once each, and whether the event is its checkpoint. */
  readonly accounts: ReadonlyArray<{ readonly account: string; readonly checkpoint: boolean }>
}

const decode = (topic: string): xdr.ScVal | undefined => {
  try {
    return xdr.ScVal.fromXdr(topic, "base64")
  } catch {
    return undefined
  }
}

/** Attribution is a pure function of the topics (INDEXER.md §3.3), never of the transaction's source account. */
export const attribute = (topics: ReadonlyArray<string>): Attributed => {
  const values = topics.map(decode)
  const first = values[0]
  const type = first?.type === "scvSymbol" ? first.sym.toString() : ""
  const accounts = new Map<string, boolean>()
  values.forEach((value, position) => {
    if (value?.type !== "scvAddress") return
    const kind = value.address.type
    if (kind !== "scAddressTypeAccount" && kind !== "scAddressTypeContract") return
    const account = Address.fromScAddress(value.address).toString()
    accounts.set(account, (accounts.get(account) ?? false) || (position === 1 && CHECKPOINT_TYPES.has(type)))
  })
  return { type, accounts: [...accounts].map(([account, checkpoint]) => ({ account, checkpoint })) }
}
