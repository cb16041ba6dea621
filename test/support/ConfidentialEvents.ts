// The confidential token's events of either version the loopback emulates, as soroban-sdk's `#[contractevent]`
// encodes them (see LoopbackEvents.ts `contractEvent`: the snake_case name and the `#[topic]` fields as topics, a map
// of the other fields, sorted, as data; an `Option` that is `None` is Void).
//
// Mirrored from OpenZeppelin/stellar-contracts, packages/tokens/src/confidential/mod.rs ("EVENTS") and
// compliance/mod.rs ("EVENTS"), at 8af46e2c and at 0fd261c2 (ConfidentialTokenVersion.ts says what changed). Both
// versions declare `Frozen`, `Unfrozen` and `ComplianceConfigChanged`; `Clawback` is 0fd261c2's alone.
import { Address, xdr } from "@stellar/stellar-sdk"
import { canonicalBytes } from "./ConfidentialData.ts"
import { EVENT_BYTES_FIELDS, type EventBytes, FIELD_BYTES, POINT_BYTES, type TokenVersion } from "./ConfidentialTokenVersion.ts"
import { contractEvent, type PublishedEvent } from "./LoopbackEvents.ts"

const address = (a: string) => Address.fromString(a).toScVal()
const optionalAddress = (a: string | undefined) => (a === undefined ? xdr.ScVal.scvVoid() : address(a))
const i128 = (n: bigint) =>
  xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: BigInt.asIntN(64, n >> 64n), lo: BigInt.asUintN(64, n) }))

/** The byte fields of `event` in `version`, each its bytes. */
type Fields<V extends TokenVersion, E extends keyof (typeof EVENT_BYTES_FIELDS)[TokenVersion]> = Readonly<Record<EventBytes<V, E>, Uint8Array>>

/** The declared byte fields of `event` in `version`, exactly: a missing or extra field is a mistake of the caller. */
const bytesOf = (version: TokenVersion, event: keyof (typeof EVENT_BYTES_FIELDS)[TokenVersion], fields: Readonly<Record<string, Uint8Array>>) => {
  const names: ReadonlyArray<string> = EVENT_BYTES_FIELDS[version][event]
  const given = Object.keys(fields)
  const stray = given.filter((name) => !names.includes(name))
  const missing = names.filter((name) => !given.includes(name))
  if (stray.length > 0 || missing.length > 0) {
    throw new TypeError(`${event} of ${version}: ${[...missing.map((m) => `missing ${m}`), ...stray.map((s) => `no field ${s}`)].join(", ")}`)
  }
  return Object.fromEntries(names.map((name) => [name, xdr.ScVal.scvBytes(fields[name]!)]))
}

/** Random canonical values for the byte fields of `event` in `version` (`r_e_point` a point, the others fields). */
export const randomEventFields = <V extends TokenVersion, E extends keyof (typeof EVENT_BYTES_FIELDS)[TokenVersion]>(version: V, event: E): Fields<V, E> => {
  const names = EVENT_BYTES_FIELDS[version][event] as ReadonlyArray<string>
  return Object.fromEntries(names.map((name) => [name, canonicalBytes(name === "r_e_point" ? POINT_BYTES : FIELD_BYTES)])) as unknown as Fields<V, E>
}

/**
 * The events of `version` for a version known only at run time: byte fields are checked against that version's
 * struct when the event is built (a missing or stray field throws).
 */
export const confidentialEventsOf = (version: TokenVersion) => ({
  register: (account: string, auditorId: number): PublishedEvent =>
    contractEvent("register", [address(account)], { auditor_id: xdr.ScVal.scvU32(auditorId) }),
  deposit: (from: string, to: string, amount: bigint): PublishedEvent =>
    contractEvent("deposit", [address(from), address(to)], { amount: i128(amount) }),
  merge: (account: string): PublishedEvent => contractEvent("merge", [address(account)], {}),
  frozen: (account: string): PublishedEvent => contractEvent("frozen", [address(account)], {}),
  unfrozen: (account: string): PublishedEvent => contractEvent("unfrozen", [address(account)], {}),
  complianceConfigChanged: (config: { readonly policy?: string; readonly sacPassthrough: boolean }): PublishedEvent =>
    contractEvent("compliance_config_changed", [], {
      policy: optionalAddress(config.policy),
      sac_passthrough: xdr.ScVal.scvBool(config.sacPassthrough)
    }),
  withdraw: (from: string, to: string, amount: bigint, f: Readonly<Record<string, Uint8Array>>): PublishedEvent =>
    contractEvent("withdraw", [address(from), address(to)], { amount: i128(amount), ...bytesOf(version, "withdraw", f) }),
  transfer: (from: string, to: string, f: Readonly<Record<string, Uint8Array>>): PublishedEvent =>
    contractEvent("transfer", [address(from), address(to)], bytesOf(version, "transfer", f)),
  spenderTransfer: (spender: string, from: string, to: string, f: Readonly<Record<string, Uint8Array>>): PublishedEvent =>
    contractEvent("spender_transfer", [address(spender), address(from), address(to)], bytesOf(version, "spender_transfer", f)),
  setSpender: (account: string, spender: string, liveUntilLedger: number, f: Readonly<Record<string, Uint8Array>>): PublishedEvent =>
    contractEvent("set_spender", [address(account), address(spender)], {
      live_until_ledger: xdr.ScVal.scvU32(liveUntilLedger),
      ...bytesOf(version, "set_spender", f)
    }),
  revokeSpender: (account: string, spender: string, f: Readonly<Record<string, Uint8Array>>): PublishedEvent =>
    contractEvent("revoke_spender", [address(account), address(spender)], bytesOf(version, "revoke_spender", f))
})

/** The events of one version, their byte fields typed by that version's structs. */
interface VersionEvents<V extends TokenVersion> {
  readonly register: (account: string, auditorId: number) => PublishedEvent
  readonly deposit: (from: string, to: string, amount: bigint) => PublishedEvent
  readonly merge: (account: string) => PublishedEvent
  readonly frozen: (account: string) => PublishedEvent
  readonly unfrozen: (account: string) => PublishedEvent
  /** `policy` absent: `None`. */
  readonly complianceConfigChanged: (config: { readonly policy?: string; readonly sacPassthrough: boolean }) => PublishedEvent
  readonly withdraw: (from: string, to: string, amount: bigint, f: Fields<V, "withdraw">) => PublishedEvent
  readonly transfer: (from: string, to: string, f: Fields<V, "transfer">) => PublishedEvent
  readonly spenderTransfer: (spender: string, from: string, to: string, f: Fields<V, "spender_transfer">) => PublishedEvent
  readonly setSpender: (account: string, spender: string, liveUntilLedger: number, f: Fields<V, "set_spender">) => PublishedEvent
  readonly revokeSpender: (account: string, spender: string, f: Fields<V, "revoke_spender">) => PublishedEvent
}

/** compliance/mod.rs `Clawback` (0fd261c2): topic `account`, data `amount: i128`, `destination: Option<Address>`. */
const clawback = (account: string, amount: bigint, destination?: string): PublishedEvent =>
  contractEvent("clawback", [address(account)], { amount: i128(amount), destination: optionalAddress(destination) })

/** The confidential token's events, by version: `confidentialEvents["0fd261c2"].transfer(from, to, fields)`. */
export const confidentialEvents: {
  readonly "8af46e2c": VersionEvents<"8af46e2c">
  readonly "0fd261c2": VersionEvents<"0fd261c2"> & { readonly clawback: typeof clawback }
} = {
  "8af46e2c": confidentialEventsOf("8af46e2c"),
  "0fd261c2": { ...confidentialEventsOf("0fd261c2"), clawback }
}

/** A `transfer` event of `version` with random canonical fields (for archives and property tests). */
export const randomTransferEvent = (version: TokenVersion, from: string, to: string): PublishedEvent =>
  confidentialEventsOf(version).transfer(from, to, randomEventFields(version, "transfer"))
