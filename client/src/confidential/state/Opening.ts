// The wallet state of OpenZeppelin's confidential token (SDK.md §10.1; OpenZeppelin/stellar-contracts docs/protocol/wallet-state.md at newer main):
// the openings (v, r) of the two on-chain commitments C = v·G + r·H, which exist nowhere but here, the position of
// the last event applied, and the spends proven but not yet seen on chain.
import { bn254 } from "@noble/curves/bn254.js"

/** Grumpkin's group order q, BN254's base field modulus: blindings accumulate mod q, never mod r (SDK.md §4.6). */
export const GRUMPKIN_ORDER: bigint = bn254.fields.Fp.ORDER

const REDACTED = "Opening <redacted>"
const inspect = Symbol.for("nodejs.util.inspect.custom")

/**
 * An opening (value, blinding). The value is an exact integer (never reduced: DESIGN.md §2.3, values never wrap); the
 * blinding is kept as its representative in [0, q). Printing, `String()` and `JSON.stringify` show `<redacted>`:
 * whatever logs a wallet state logs no opening. The sealed store (SealedState.ts) encodes the fields explicitly.
 */
export class Opening {
  readonly value: bigint
  readonly blinding: bigint

  constructor(value: bigint, blinding: bigint) {
    if (value < 0n) throw new RangeError("an opening's value cannot be negative")
    this.value = value
    this.blinding = ((blinding % GRUMPKIN_ORDER) + GRUMPKIN_ORDER) % GRUMPKIN_ORDER
  }

  /** The opening of the sum of the two commitments: Com(v1, r1) + Com(v2, r2) = Com(v1 + v2, r1 + r2 mod q). */
  add(other: Opening): Opening {
    return new Opening(this.value + other.value, this.blinding + other.blinding)
  }

  toJSON(): string {
    return REDACTED
  }

  toString(): string {
    return REDACTED
  }

  [inspect](): string {
    return REDACTED
  }
}

/** The opening of the identity, what `register` sets both commitments to (storage.rs `register`). */
export const ZERO = new Opening(0n, 0n)

/** The last event applied, in the order (ledger, id): RPC's and the archive's ids (`%019d-%010d`, a TOID and the
 * event's index) sort as the events were emitted. */
export interface Cursor {
  readonly ledger: number
  readonly id: string
}

/**
 * A spend whose proof is built and whose transaction may be on its way (SDK.md §10.3): the spendable commitment it
 * writes and its opening, and the commitment it spends from. Wallet.ts says how it is confirmed or dropped.
 */
export interface Pending {
  /** C_spend' of the payload (64 bytes, x‖y). */
  readonly commitment: Uint8Array
  readonly opening: Opening
  /** C_spend the proof spent from (64 bytes): the chain's spendable commitment it needs to land. */
  readonly basedOn: Uint8Array
  /** The transaction's hash (hex), to recognise its event. */
  readonly txHash: string
  /** The last ledger the transaction can be included in (its ledger bounds): past it, it never lands. */
  readonly validUntilLedger: number
}

export interface WalletState {
  /** The confidential account (G… or C…). */
  readonly account: string
  /** The confidential token contract (C…). */
  readonly contract: string
  /** W_spend: opens the account's `spendable_commitment` as of `cursor`. */
  readonly spendable: Opening
  /** W_receive: opens the account's `receiving_commitment` as of `cursor`. */
  readonly receiving: Opening
  /** The last event applied; undefined before any. */
  readonly cursor: Cursor | undefined
  /** Spends proven on top of one another, oldest first; each one's `basedOn` is the previous one's `commitment`. */
  readonly pending: ReadonlyArray<Pending>
}

/** A registered account's state before any event: both commitments are the identity (storage.rs `register`). */
export const emptyState = (account: string, contract: string): WalletState => ({
  account,
  contract,
  spendable: ZERO,
  receiving: ZERO,
  cursor: undefined,
  pending: []
})

/** The order events are applied in: ledger, then id. */
export const compareCursor = (a: Cursor, b: Cursor): number =>
  a.ledger !== b.ledger ? a.ledger - b.ledger : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
