// The token's events as the auditor reads them: every field of the 8af46e2c `#[contractevent]` structs
// (OpenZeppelin/stellar-contracts packages/tokens/src/confidential/mod.rs "EVENTS"; storage.rs documents each one's
// topics and data) including the auditor ciphertexts that state/ArchiveEvents.ts leaves out. soroban-sdk encodes each
// as the snake_case name and the `#[topic]` addresses as topics, the other fields as a map (test/support/
// LoopbackEvents.ts builds the same). The service's archive (src/Archive/Event.ts: `topics`, `value`) and Stellar
// RPC's getEvents (`topic`, `value`, base64 or parsed) both carry them verbatim, with the ledger's close time.
import { scValToNative, xdr } from "@stellar/stellar-sdk"
import { fieldFromBytes } from "../crypto/Field.ts"
import { type GrumpkinPoint, pointFromBytes } from "../crypto/Grumpkin.ts"
import { ArchiveEventInvalid } from "../state/StateErrors.ts"

/** One event as the archive's JSON or an RPC answer carries it (for RPC's `topic`, see `fromRpcEvent`). */
export interface RawTokenEvent {
  readonly id: string
  readonly ledger: number
  /** RFC 3339: the archive's `ledgerClosedAt`, RPC's `ledgerClosedAt`. */
  readonly ledgerClosedAt: string
  readonly txHash: string
  readonly topics: ReadonlyArray<string | xdr.ScVal>
  readonly value: string | xdr.ScVal
}

/** Stellar RPC's getEvents item (raw or as rpc.Server parses it) in the archive's shape. */
export const fromRpcEvent = (event: {
  readonly id: string
  readonly ledger: number
  readonly ledgerClosedAt: string
  readonly txHash: string
  readonly topic?: ReadonlyArray<string | xdr.ScVal> | undefined
  readonly value: string | xdr.ScVal
}): RawTokenEvent => ({ ...event, topics: event.topic ?? [] })

interface Base {
  readonly id: string
  readonly ledger: number
  /** The ledger's close, normalised to `toISOString()` (UTC, milliseconds). */
  readonly closedAt: string
  readonly txHash: string
}

/** The sender-auditor channel of an owner's proven operation: R_e, σ, and the two ciphertexts. */
interface SenderChannel {
  readonly rE: GrumpkinPoint
  readonly sigma: bigint
  readonly vTildeAudS: bigint
}

/** The recipient-auditor channel of a transfer (T_a3, T_a4; O_a3, O_a4). */
interface RecipientChannel {
  readonly vTildeAudR: bigint
  readonly rTildeAudR: bigint
}

export type AuditEvent = Base & (
  | { readonly type: "register"; readonly account: string; readonly auditorId: number }
  | { readonly type: "deposit"; readonly from: string; readonly to: string; readonly amount: bigint }
  | { readonly type: "merge"; readonly account: string }
  | {
    readonly type: "withdraw"; readonly from: string; readonly to: string; readonly amount: bigint
    readonly rE: GrumpkinPoint; readonly sigma: bigint; readonly bTildeAudS: bigint
  }
  | ({ readonly type: "transfer"; readonly from: string; readonly to: string; readonly bTildeAudS: bigint } & SenderChannel & RecipientChannel)
  // σ here is the event's `sigma_a`: the delegation's salt before rotation, which both channels absorb (O_a2, O_a6).
  | ({
    readonly type: "spender_transfer"; readonly spender: string; readonly from: string; readonly to: string
    readonly aTildeAudS: bigint
  } & SenderChannel & RecipientChannel)
  | ({ readonly type: "set_spender" | "revoke_spender"; readonly account: string; readonly spender: string; readonly bTildeAudS: bigint } & SenderChannel)
)

/** The operations whose proof carries a sender-auditor channel (DESIGN_cont.md §8.2, §8.4). */
export type ProvenEvent = Extract<AuditEvent, { readonly rE: GrumpkinPoint }>

const BALANCE_EVENTS = new Set(["register", "deposit", "merge", "transfer", "withdraw", "spender_transfer", "set_spender", "revoke_spender"])

const scVal = (v: string | xdr.ScVal) => (typeof v === "string" ? xdr.ScVal.fromXDR(v, "base64") : v)

const read = (event: RawTokenEvent): AuditEvent | undefined => {
  const bad = (reason: string) => new ArchiveEventInvalid({ id: event.id, reason })
  const [name, ...addresses] = event.topics.map((t) => scValToNative(scVal(t)) as unknown)
  if (name === "clawback") throw bad("a clawback belongs to a newer token version than 8af46e2c")
  if (typeof name !== "string" || !BALANCE_EVENTS.has(name)) return undefined
  const data: unknown = scValToNative(scVal(event.value))
  if (typeof data !== "object" || data === null) throw bad("its data is not a map")
  const fields = new Map(Object.entries(data))
  // 0fd261c2 (#853) adds r_tilde_aud_s to the auditor block and renames or drops fields: another derivation, refused.
  if (fields.has("r_tilde_aud_s")) throw bad(`${name} with r_tilde_aud_s: a newer token version than 8af46e2c`)
  const address = (i: number) => {
    const a = addresses[i]
    if (typeof a !== "string") throw bad(`topic ${i + 1} is not an address`)
    return a
  }
  const bytes = (field: string, length: 32 | 64) => {
    const b = fields.get(field)
    if (!(b instanceof Uint8Array) || b.length !== length) throw bad(`${field} is not ${length} bytes`)
    return b
  }
  const field = (name: string) => fieldFromBytes(bytes(name, 32), name)
  const amount = () => {
    const a = fields.get("amount")
    if (typeof a !== "bigint" || a < 0n) throw bad("amount is not a non-negative i128")
    return a
  }
  const closed = Date.parse(event.ledgerClosedAt)
  if (Number.isNaN(closed)) throw bad("ledgerClosedAt is not a time")
  const base = { id: event.id, ledger: event.ledger, closedAt: new Date(closed).toISOString(), txHash: event.txHash }
  const sender = (sigmaField: string) => ({
    rE: pointFromBytes(bytes("r_e_point", 64), "r_e_point"),
    sigma: field(sigmaField),
    vTildeAudS: field("v_tilde_aud_s")
  })
  const recipient = () => ({ vTildeAudR: field("v_tilde_aud_r"), rTildeAudR: field("r_tilde_aud_r") })
  switch (name) {
    case "register": {
      const auditorId = fields.get("auditor_id")
      if (typeof auditorId !== "number") throw bad("auditor_id is not a u32")
      return { ...base, type: name, account: address(0), auditorId }
    }
    case "merge":
      return { ...base, type: name, account: address(0) }
    case "deposit":
      return { ...base, type: name, from: address(0), to: address(1), amount: amount() }
    case "withdraw":
      return {
        ...base, type: name, from: address(0), to: address(1), amount: amount(),
        rE: pointFromBytes(bytes("r_e_point", 64), "r_e_point"), sigma: field("sigma"), bTildeAudS: field("b_tilde_aud_s")
      }
    case "transfer":
      return { ...base, type: name, from: address(0), to: address(1), ...sender("sigma"), ...recipient(), bTildeAudS: field("b_tilde_aud_s") }
    case "spender_transfer":
      if (!fields.has("sigma_a")) throw bad("spender_transfer without sigma_a: a newer token version than 8af46e2c")
      return {
        ...base, type: name, spender: address(0), from: address(1), to: address(2), ...sender("sigma_a"), ...recipient(),
        aTildeAudS: field("a_tilde_aud_s")
      }
    default:
      // 0fd261c2 (#854) makes revoke_spender proofless: no R_e, no auditor block.
      if (!fields.has("r_e_point")) throw bad(`${name} without r_e_point: a newer token version than 8af46e2c`)
      return {
        ...base, type: name === "set_spender" ? name : "revoke_spender", account: address(0), spender: address(1),
        ...sender("sigma"), bTildeAudS: field("b_tilde_aud_s")
      }
  }
}

/** One event read for the auditor: undefined when it moves no balance (configuration, freezes); throws ArchiveEventInvalid. */
export const decodeAuditEvent = (event: RawTokenEvent): AuditEvent | undefined => {
  try {
    return read(event)
  } catch (error) {
    if (error instanceof ArchiveEventInvalid) throw error
    throw new ArchiveEventInvalid({ id: event.id, reason: error instanceof Error ? error.message : "not an XDR ScVal" })
  }
}
