// The two versions of OpenZeppelin's confidential token the loopback emulates, and what differs between them: the
// `TransferPayload` inside `confidential_transfer`'s `data`, the events, and `revoke_spender`'s arguments.
//
// - "8af46e2c": OpenZeppelin/stellar-contracts at 8af46e2c3ba3501ff6ddd0a5d72290e410ace9ca (soroban-sdk 26.1.0),
//   packages/tokens/src/confidential/mod.rs, storage.rs, compliance/mod.rs.
// - "0fd261c2": the same files at 0fd261c25771ae7217711dd86e679a38f78bdc8b, the newest main the index holds of
//   them: #815 renames `TransferPayload.c_tx` to `c_transfer`; #853 adds the auditor's escrowed blinding
//   `r_tilde_aud_s` to `TransferPayload` and to the `Transfer`, `Withdraw`, `SpenderTransfer` (whose `sigma_a` becomes
//   `sigma_a_new`) and `SetSpender` (with `r_a_tilde_aud_s`) events; #854 makes `revoke_spender(account, spender)`
//   proofless (its event carries `a_tilde`, `allowance_salt`); #855/#872 add the compliance `Clawback` event.
//
// A `#[contracttype]` struct is an ScMap keyed by its field names as symbols, sorted by name whatever the Rust
// declaration order (stellar/rs-soroban-sdk, soroban-sdk-macros/src/derive_struct.rs: `sorted_by_key`; the token's
// docs/protocol/interface.md at 3a58cee2: "keyed by field-name symbols in canonical sorted order, which the host
// enforces"). The lists below are in that sorted order.

export const TOKEN_VERSIONS = ["8af46e2c", "0fd261c2"] as const
export type TokenVersion = (typeof TOKEN_VERSIONS)[number]
/** The version every loopback token has unless told otherwise: what the service was first written against. */
export const DEFAULT_TOKEN_VERSION: TokenVersion = "8af46e2c"
/** The newest main the emulation mirrors. */
export const NEWEST_TOKEN_VERSION: TokenVersion = "0fd261c2"

/** Full commit of each version, for citing. */
export const TOKEN_COMMITS: Readonly<Record<TokenVersion, string>> = {
  "8af46e2c": "8af46e2c3ba3501ff6ddd0a5d72290e410ace9ca",
  "0fd261c2": "0fd261c25771ae7217711dd86e679a38f78bdc8b"
}

/** `Point = BytesN<64>` (packages/contract-utils/src/crypto/grumpkin.rs), field representatives `BytesN<32>`. */
export const POINT_BYTES = 64
export const FIELD_BYTES = 32

type Fields = ReadonlyArray<readonly [name: string, bytes: typeof POINT_BYTES | typeof FIELD_BYTES]>

/** storage.rs `TransferPayload`: its fields (sorted, as the ScMap holds them) and their BytesN lengths. */
export const TRANSFER_PAYLOAD: Readonly<Record<TokenVersion, Fields>> = {
  "8af46e2c": [
    ["b_tilde", 32], ["b_tilde_aud_s", 32], ["c_spend_new", 64], ["c_tx", 64], ["r_e_point", 64],
    ["r_tilde_aud_r", 32], ["sigma", 32], ["v_tilde", 32], ["v_tilde_aud_r", 32], ["v_tilde_aud_s", 32]
  ],
  "0fd261c2": [
    ["b_tilde", 32], ["b_tilde_aud_s", 32], ["c_spend_new", 64], ["c_transfer", 64], ["r_e_point", 64],
    ["r_tilde_aud_r", 32], ["r_tilde_aud_s", 32], ["sigma", 32], ["v_tilde", 32], ["v_tilde_aud_r", 32], ["v_tilde_aud_s", 32]
  ]
}

/** The payload field `add_to_receiving` credits the recipient with (storage.rs `confidential_transfer`). */
export const TRANSFER_AMOUNT_FIELD: Readonly<Record<TokenVersion, "c_tx" | "c_transfer">> = {
  "8af46e2c": "c_tx",
  "0fd261c2": "c_transfer"
}

/**
 * The byte fields of each mod.rs `#[contractevent]` struct (beside its `#[topic]` addresses and its integer
 * fields), as declared; `Point` fields are `r_e_point` alone. Events absent from a version have no entry.
 */
export const EVENT_BYTES_FIELDS = {
  "8af46e2c": {
    withdraw: ["r_e_point", "sigma", "b_tilde", "b_tilde_aud_s"],
    transfer: ["r_e_point", "v_tilde", "sigma", "b_tilde", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "b_tilde_aud_s"],
    spender_transfer: ["r_e_point", "v_tilde", "sigma_a", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "a_tilde_aud_s"],
    set_spender: ["r_e_point", "sigma", "b_tilde", "v_tilde_aud_s", "b_tilde_aud_s"],
    revoke_spender: ["r_e_point", "sigma", "b_tilde", "v_tilde_aud_s", "b_tilde_aud_s"]
  },
  "0fd261c2": {
    withdraw: ["r_e_point", "sigma", "b_tilde", "b_tilde_aud_s", "r_tilde_aud_s"],
    transfer: ["r_e_point", "v_tilde", "sigma", "b_tilde", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "b_tilde_aud_s", "r_tilde_aud_s"],
    spender_transfer: [
      "r_e_point", "v_tilde", "sigma_a_new", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "a_tilde_aud_s", "r_tilde_aud_s"
    ],
    set_spender: ["r_e_point", "sigma", "b_tilde", "v_tilde_aud_s", "b_tilde_aud_s", "r_tilde_aud_s", "r_a_tilde_aud_s"],
    revoke_spender: ["a_tilde", "allowance_salt"]
  }
} as const satisfies Record<TokenVersion, Record<string, ReadonlyArray<string>>>

/** The byte fields of `event` in `version`. */
export type EventBytes<V extends TokenVersion, E extends keyof (typeof EVENT_BYTES_FIELDS)[TokenVersion]> = (typeof EVENT_BYTES_FIELDS)[V][E][number]

/** The `ConfidentialToken` trait's functions and their arity (mod.rs): `revoke_spender` lost `data` in #854. */
export const TOKEN_FUNCTIONS: Readonly<Record<TokenVersion, ReadonlyMap<string, number>>> = {
  "8af46e2c": new Map([
    ["register", 3], ["deposit", 3], ["merge", 1], ["withdraw", 4], ["confidential_transfer", 3],
    ["confidential_transfer_from", 4], ["set_spender", 4], ["revoke_spender", 3], ["confidential_balance", 1],
    ["is_spender", 2], ["get_spender_delegation", 2]
  ]),
  "0fd261c2": new Map([
    ["register", 3], ["deposit", 3], ["merge", 1], ["withdraw", 4], ["confidential_transfer", 3],
    ["confidential_transfer_from", 4], ["set_spender", 4], ["revoke_spender", 2], ["confidential_balance", 1],
    ["is_spender", 2], ["get_spender_delegation", 2]
  ])
}
