// The confidential token's events in both versions the archive meets, as soroban-sdk's `#[contractevent]` encodes them
// (LoopbackEvents.ts `contractEvent`: the snake_case name and the `#[topic]` fields as topics, the other fields as a
// map keyed by name, sorted; an `Option` that is `None` is Void). Every byte field is random: the archive stores
// events verbatim and reads only their names, topics and which fields the data carries.
//
// Pinned to OpenZeppelin/stellar-contracts, packages/tokens/src/confidential/:
// - "8af46e2c": mod.rs "EVENTS" and compliance/mod.rs "EVENTS" at 8af46e2c3ba3501ff6ddd0a5d72290e410ace9ca — Withdraw
//   {amount, r_e_point, sigma, b_tilde, b_tilde_aud_s}, Transfer {r_e_point, v_tilde, sigma, b_tilde, v_tilde_aud_r,
//   r_tilde_aud_r, v_tilde_aud_s, b_tilde_aud_s}, SpenderTransfer {…, sigma_a, …, a_tilde_aud_s}, SetSpender
//   {live_until_ledger, r_e_point, sigma, b_tilde, v_tilde_aud_s, b_tilde_aud_s}, RevokeSpender {r_e_point, sigma,
//   b_tilde, v_tilde_aud_s, b_tilde_aud_s} (a proof's checkpoint), Frozen, Unfrozen, ComplianceConfigChanged.
// - "0fd261c2": the same files at 0fd261c25771ae7217711dd86e679a38f78bdc8b, the newest the search index holds — #853
//   adds `r_tilde_aud_s` to Withdraw, Transfer and SpenderTransfer (whose `sigma_a` becomes `sigma_a_new`) and
//   `r_tilde_aud_s`, `r_a_tilde_aud_s` to SetSpender; #854 makes RevokeSpender proofless: {a_tilde, allowance_salt};
//   #855/#872 add Clawback {#[topic] account, amount: i128, destination: Option<Address>} beside Frozen, Unfrozen,
//   ComplianceConfigChanged {policy: Option<Address>, sac_passthrough: bool}.
// The field lists are the Rust declaration order; `contractEvent` sorts them by name, as the host does.
import { Address, xdr } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { contractEvent, type PublishedEvent } from "./LoopbackEvents.ts"

const address = (a: string) => Address.fromString(a).toScVal()
const optionalAddress = (a: string | undefined) => a === undefined ? xdr.ScVal.scvVoid() : address(a)
const i128 = (n: bigint) =>
  xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: BigInt.asIntN(64, n >> 64n), lo: BigInt.asUintN(64, n) }))
/** Random bytes for each named field: `r_e_point` a 64-byte point (BytesN<64>), every other a BytesN<32>. */
const fields = (names: ReadonlyArray<string>): Record<string, xdr.ScVal> =>
  Object.fromEntries(names.map((name) => [name, xdr.ScVal.scvBytes(randomBytes(name === "r_e_point" ? 64 : 32))]))

const V8AF46E2C = {
  withdraw: ["r_e_point", "sigma", "b_tilde", "b_tilde_aud_s"],
  transfer: ["r_e_point", "v_tilde", "sigma", "b_tilde", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "b_tilde_aud_s"],
  spenderTransfer: ["r_e_point", "v_tilde", "sigma_a", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "a_tilde_aud_s"],
  setSpender: ["r_e_point", "sigma", "b_tilde", "v_tilde_aud_s", "b_tilde_aud_s"],
  revokeSpender: ["r_e_point", "sigma", "b_tilde", "v_tilde_aud_s", "b_tilde_aud_s"]
} as const

const V0FD261C2 = {
  withdraw: [...V8AF46E2C.withdraw, "r_tilde_aud_s"],
  transfer: [...V8AF46E2C.transfer, "r_tilde_aud_s"],
  spenderTransfer: [
    "r_e_point", "v_tilde", "sigma_a_new", "v_tilde_aud_r", "r_tilde_aud_r", "v_tilde_aud_s", "a_tilde_aud_s", "r_tilde_aud_s"
  ],
  setSpender: [...V8AF46E2C.setSpender, "r_tilde_aud_s", "r_a_tilde_aud_s"],
  revokeSpender: ["a_tilde", "allowance_salt"]
} as const

/** The token's version by the commit its events are mirrored from (as test/support/ConfidentialTokenVersion.ts names them). */
export type TokenVersion = "8af46e2c" | "0fd261c2"

/** The events of one version of the token, by struct (mod.rs and compliance/mod.rs at that version's commit). */
export const eventsOf = (version: TokenVersion) => {
  const shape = version === "8af46e2c" ? V8AF46E2C : V0FD261C2
  return {
    register: (account: string, auditorId = 0): PublishedEvent =>
      contractEvent("register", [address(account)], { auditor_id: xdr.ScVal.scvU32(auditorId) }),
    deposit: (from: string, to: string, amount: bigint): PublishedEvent =>
      contractEvent("deposit", [address(from), address(to)], { amount: i128(amount) }),
    merge: (account: string): PublishedEvent => contractEvent("merge", [address(account)], {}),
    withdraw: (from: string, to: string, amount: bigint): PublishedEvent =>
      contractEvent("withdraw", [address(from), address(to)], { amount: i128(amount), ...fields(shape.withdraw) }),
    transfer: (from: string, to: string): PublishedEvent => contractEvent("transfer", [address(from), address(to)], fields(shape.transfer)),
    spenderTransfer: (spender: string, from: string, to: string): PublishedEvent =>
      contractEvent("spender_transfer", [address(spender), address(from), address(to)], fields(shape.spenderTransfer)),
    setSpender: (account: string, spender: string, liveUntilLedger: number): PublishedEvent =>
      contractEvent("set_spender", [address(account), address(spender)], {
        live_until_ledger: xdr.ScVal.scvU32(liveUntilLedger),
        ...fields(shape.setSpender)
      }),
    revokeSpender: (account: string, spender: string): PublishedEvent =>
      contractEvent("revoke_spender", [address(account), address(spender)], fields(shape.revokeSpender)),
    frozen: (account: string): PublishedEvent => contractEvent("frozen", [address(account)], {}),
    unfrozen: (account: string): PublishedEvent => contractEvent("unfrozen", [address(account)], {}),
    complianceConfigChanged: (policy: string | undefined, sacPassthrough: boolean): PublishedEvent =>
      contractEvent("compliance_config_changed", [], {
        policy: optionalAddress(policy),
        sac_passthrough: xdr.ScVal.scvBool(sacPassthrough)
      })
  }
}

/** `Clawback` (compliance/mod.rs at 0fd261c2; the token at 8af46e2c has none). */
export const clawback = (account: string, amount: bigint, destination?: string): PublishedEvent =>
  contractEvent("clawback", [address(account)], { amount: i128(amount), destination: optionalAddress(destination) })

/**
 * `event` as a token built on soroban-sdk 28 publishes it: CAP-86 packs a `#[contractevent]`'s data map sparsely,
 * leaving out every field whose value is Void (a `None` `Option`), stellar/rs-soroban-sdk PR #2008. The token's own
 * crate (OpenZeppelin/stellar-contracts packages/confidential/, Cargo.toml at 9078d163: soroban-sdk 28.0.0) documents
 * it for `ComplianceConfigChanged.policy` and `Clawback.destination`; SDF's advice is that any event may be sparse.
 */
export const sparse = (event: PublishedEvent): PublishedEvent => {
  if (event.data.type !== "scvMap") return event
  const entries = (event.data.map ?? []).filter((entry) => entry.val.type !== "scvVoid")
  return { topics: event.topics, data: xdr.ScVal.scvMap(entries) }
}
