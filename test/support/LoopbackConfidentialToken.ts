// An emulation of OpenZeppelin's confidential token for the loopback RPC, pinned to
// OpenZeppelin/stellar-contracts (8af46e2): packages/tokens/src/confidential/mod.rs (the `ConfidentialToken` trait,
// `ConfidentialTokenError` 3500–3514) and storage.rs (`ConfidentialAccount`, `TransferPayload`, `TransferData`,
// `decode_data`, `get_account`, `confidential_transfer`); `Point` is `BytesN<64>`
// (packages/contract-utils/src/crypto/grumpkin.rs).
//
// Emulated: `confidential_balance` and `confidential_transfer` (which publishes the `Transfer` event, mod.rs
// `emit_transfer`, as `#[contractevent]` encodes it: see LoopbackEvents.ts); `register` through the loopback's
// `registerConfidential` (and `registerConfidentialWithEvent`, which publishes the `Register` event). Not emulated, so they fail loudly: the other nine
// trait functions; in `confidential_transfer`, the auditor registry lookup, the canonical-encoding check (3514) and
// the proof verification (3506) — any well-formed proof is accepted.
import { Address, xdr } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { structVal } from "./ConfidentialData.ts"
import { argumentCountMismatch, argumentTypeMismatch, contractError, hostFunctionError, notEmulated } from "./LoopbackXdr.ts"
import type { ContractCallContext, ContractHandler } from "./LoopbackTypes.ts"
import { tokenEvents } from "./LoopbackEvents.ts"

/** storage.rs `ConfidentialAccount`. */
export interface LoopbackConfidentialAccount {
  readonly spendingPublicKey: Uint8Array
  readonly viewingPublicKey: Uint8Array
  readonly spendableCommitment: Uint8Array
  readonly receivingCommitment: Uint8Array
  readonly auditorId: number
}

/** mod.rs `ConfidentialTokenError`. */
export const ConfidentialTokenError = { AccountNotRegistered: 3501, InvalidData: 3507 } as const

/** The functions of the `ConfidentialToken` trait and their arity. */
export const CONFIDENTIAL_TOKEN_FUNCTIONS: ReadonlyMap<string, number> = new Map([
  ["register", 3], ["deposit", 3], ["merge", 1], ["withdraw", 4], ["confidential_transfer", 3],
  ["confidential_transfer_from", 4], ["set_spender", 4], ["revoke_spender", 3], ["confidential_balance", 1],
  ["is_spender", 2], ["get_spender_delegation", 2]
])

const POINT = 64
const FIELD = 32
const IDENTITY = new Uint8Array(POINT) // Grumpkin::identity(): the all-zero encoding
/** storage.rs `TransferPayload`: field name → BytesN length (Point = 64, BytesN<32> = 32). */
const TRANSFER_PAYLOAD: ReadonlyArray<readonly [string, number]> = [
  ["b_tilde", FIELD], ["b_tilde_aud_s", FIELD], ["c_spend_new", POINT], ["c_tx", POINT], ["r_e_point", POINT],
  ["r_tilde_aud_r", FIELD], ["sigma", FIELD], ["v_tilde", FIELD], ["v_tilde_aud_r", FIELD], ["v_tilde_aud_s", FIELD]
]

const isAddress = (v: xdr.ScVal | undefined): v is xdr.ScVal =>
  v?.type === "scvAddress" && (v.address.type === "scAddressTypeAccount" || v.address.type === "scAddressTypeContract")

/** A `#[contracttype]` struct's ScMap: exactly these symbol keys, in this (sorted) order. */
const fieldsOf = (v: xdr.ScVal | undefined, names: ReadonlyArray<string>): Array<xdr.ScVal> | undefined => {
  if (v?.type !== "scvMap" || v.map === null || v.map.length !== names.length) return undefined
  const vals: Array<xdr.ScVal> = []
  for (const [i, entry] of v.map.entries()) {
    if (entry.key.type !== "scvSymbol" || entry.key.sym.toString() !== names[i]) return undefined
    vals.push(entry.val)
  }
  return vals
}

const bytesOf = (v: xdr.ScVal | undefined, length?: number): Uint8Array | undefined => {
  if (v?.type !== "scvBytes") return undefined
  const raw = v.bytes.toBytes()
  return length === undefined || raw.length === length ? raw : undefined
}

/** ScVals the host cannot hold as a Val, and maps it refuses: what `deserialize_from_bytes` rejects after parsing. */
const unrepresentable = (v: xdr.ScVal): "type" | "unsorted" | undefined => {
  switch (v.type) {
    case "scvLedgerKeyContractInstance": case "scvLedgerKeyNonce": case "scvContractInstance": return "type"
    case "scvVec": return (v.vec ?? []).map(unrepresentable).find((r) => r !== undefined)
    case "scvMap": {
      const entries = v.map ?? []
      const keys = entries.map((e) => (e.key.type === "scvSymbol" ? e.key.sym.toString() : undefined))
      if (keys.every((k) => k !== undefined) && keys.some((k, i) => i > 0 && !(keys[i - 1]! < k!))) return "unsorted"
      return entries.flatMap((e) => [e.key, e.val]).map(unrepresentable).find((r) => r !== undefined)
    }
    default: return undefined
  }
}

export class LoopbackConfidentialToken {
  readonly contractId: string
  readonly #latestLedger: () => number
  readonly #accounts = new Map<string, Array<{ ledger: number; account: LoopbackConfidentialAccount | undefined }>>()

  constructor(contractId: string, latestLedger: () => number) {
    this.contractId = contractId
    this.#latestLedger = latestLedger
  }

  /** Registers `address` as of the latest ledger: storage.rs `register` stores both commitments as the identity. */
  register(
    address: string,
    account?: { viewingPublicKey?: Uint8Array; spendingPublicKey?: Uint8Array; auditorId?: number }
  ): { viewingPublicKey: Uint8Array; spendingPublicKey: Uint8Array; auditorId: number } {
    Address.fromString(address)
    const point = (key: Uint8Array | undefined, what: string) => {
      if (key !== undefined && key.length !== POINT) throw new RangeError(`${what} must be a ${POINT}-byte Grumpkin point`)
      return Uint8Array.from(key ?? randomBytes(POINT))
    }
    const viewingPublicKey = point(account?.viewingPublicKey, "viewingPublicKey")
    const spendingPublicKey = point(account?.spendingPublicKey, "spendingPublicKey")
    const auditorId = account?.auditorId ?? 0
    if (!Number.isInteger(auditorId) || auditorId < 0 || auditorId > 0xffffffff) throw new RangeError("auditorId must be a u32")
    this.#write(address, {
      viewingPublicKey, spendingPublicKey, auditorId, spendableCommitment: IDENTITY, receivingCommitment: IDENTITY
    }, this.#latestLedger())
    return { viewingPublicKey: Uint8Array.from(viewingPublicKey), spendingPublicKey: Uint8Array.from(spendingPublicKey), auditorId }
  }

  unregister(address: string): void {
    this.#write(address, undefined, this.#latestLedger())
  }

  /** The account as of `ledger` (default: now). */
  account(address: string, ledger = Number.POSITIVE_INFINITY): LoopbackConfidentialAccount | undefined {
    const versions = this.#accounts.get(address) ?? []
    for (let i = versions.length - 1; i >= 0; i--) {
      const version = versions[i]!
      if (version.ledger <= ledger) return version.account
    }
    return undefined
  }

  /** Every function of the trait, for the loopback's contract table. */
  functions(): ReadonlyMap<string, ContractHandler> {
    const table = new Map<string, ContractHandler>()
    for (const [fn, arity] of CONFIDENTIAL_TOKEN_FUNCTIONS) {
      table.set(fn, (args) => {
        if (args.length !== arity) throw argumentCountMismatch(this.contractId, fn)
        throw notEmulated(this.contractId, fn, `ConfidentialToken::${fn}`)
      })
    }
    table.set("confidential_balance", (args, ctx) => this.#confidentialBalance(args, ctx))
    table.set("confidential_transfer", (args, ctx) => this.#confidentialTransfer(args, ctx))
    return table
  }

  #write(address: string, account: LoopbackConfidentialAccount | undefined, ledger: number): void {
    const versions = this.#accounts.get(address)
    if (versions === undefined) this.#accounts.set(address, [{ ledger, account }])
    else versions.push({ ledger, account })
  }

  /** storage.rs `get_account`: AccountNotRegistered when absent. */
  #registered(address: string, ctx: ContractCallContext): LoopbackConfidentialAccount {
    const account = this.account(address, ctx.asOf)
    if (account === undefined) throw contractError(this.contractId, ConfidentialTokenError.AccountNotRegistered)
    return account
  }

  #arguments(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext, valid: ReadonlyArray<(v: xdr.ScVal | undefined) => boolean>): void {
    if (args.length !== valid.length) throw argumentCountMismatch(this.contractId, ctx.fn)
    if (!valid.every((check, i) => check(args[i]))) throw argumentTypeMismatch(this.contractId, ctx.fn)
  }

  /** mod.rs `confidential_balance(account: Address) -> ConfidentialAccount`. */
  #confidentialBalance(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress])
    const account = this.#registered(Address.fromScVal(args[0]!).toString(), ctx)
    return structVal({
      auditor_id: xdr.ScVal.scvU32(account.auditorId),
      receiving_commitment: xdr.ScVal.scvBytes(account.receivingCommitment),
      spendable_commitment: xdr.ScVal.scvBytes(account.spendableCommitment),
      spending_public_key: xdr.ScVal.scvBytes(account.spendingPublicKey),
      viewing_public_key: xdr.ScVal.scvBytes(account.viewingPublicKey)
    })
  }

  /**
   * mod.rs `confidential_transfer(from, to, data)`: `from.require_auth()`, `decode_data::<TransferData>`, then
   * storage.rs `confidential_transfer`: both accounts registered, `set_spendable(from, c_spend_new)`,
   * `add_to_receiving(to, c_tx)`.
   */
  #confidentialTransfer(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress, isAddress, (v) => v?.type === "scvBytes"])
    const from = Address.fromScVal(args[0]!).toString()
    const to = Address.fromScVal(args[1]!).toString()
    ctx.requireAuth(from)
    const payload = this.#decodeTransferData(bytesOf(args[2])!)
    this.#registered(from, ctx)
    this.#registered(to, ctx)
    if (ctx.phase === "apply") {
      const sender = this.account(from, ctx.asOf)!
      this.#write(from, { ...sender, spendableCommitment: payload.cSpendNew }, ctx.ledger)
      const recipient = this.account(to, ctx.asOf)!
      // Grumpkin::add(O, c_tx) = c_tx; other sums are beyond the emulation: a fresh 64-byte value stands in
      const sum = Buffer.from(recipient.receivingCommitment).equals(IDENTITY) ? payload.cTx : Uint8Array.from(randomBytes(POINT))
      this.#write(to, { ...recipient, receivingCommitment: sum }, ctx.ledger)
      const event = tokenEvents.transfer(from, to, payload.event)
      ctx.emit(event.topics, event.data)
    }
    return xdr.ScVal.scvVoid()
  }

  /**
   * storage.rs `decode_data`: `TransferData::from_xdr`. Bytes that are no ScVal make the host's
   * `deserialize_from_bytes` fail (soroban-sdk's FromXdr unwraps it); an ScVal of another shape is InvalidData.
   */
  #decodeTransferData(data: Uint8Array): { cSpendNew: Uint8Array; cTx: Uint8Array; event: Parameters<typeof tokenEvents.transfer>[2] } {
    let value: xdr.ScVal
    try {
      value = xdr.ScVal.fromXdr(data)
    } catch {
      throw hostFunctionError(this.contractId, "deserialize_from_bytes", "Error(Value, InvalidInput)", "Invalid")
    }
    const refused = unrepresentable(value)
    if (refused === "type") {
      throw hostFunctionError(this.contractId, "deserialize_from_bytes", "Error(Value, UnexpectedType)", "Deserialized ScVal type cannot be represented as Val")
    }
    if (refused === "unsorted") {
      throw hostFunctionError(this.contractId, "deserialize_from_bytes", "Error(Object, InvalidInput)", "ScMap was not sorted by key for conversion to host object")
    }
    const invalid = () => contractError(this.contractId, ConfidentialTokenError.InvalidData)
    const [payload, proof] = fieldsOf(value, ["payload", "proof"]) ?? []
    const fields = fieldsOf(payload, TRANSFER_PAYLOAD.map(([name]) => name))
    if (fields === undefined || bytesOf(proof) === undefined) throw invalid()
    const raw = fields.map((v, i) => bytesOf(v, TRANSFER_PAYLOAD[i]![1]))
    if (raw.some((r) => r === undefined)) throw invalid()
    const named = new Map(TRANSFER_PAYLOAD.map(([name], i) => [name, raw[i]!]))
    const field = (name: string) => named.get(name)!
    return {
      cSpendNew: field("c_spend_new"),
      cTx: field("c_tx"),
      // mod.rs `emit_transfer(e, from, to, r_e_point, v_tilde, sigma, b_tilde, v_tilde_aud_r, r_tilde_aud_r, v_tilde_aud_s, b_tilde_aud_s)`
      event: {
        r_e_point: field("r_e_point"), v_tilde: field("v_tilde"), sigma: field("sigma"), b_tilde: field("b_tilde"),
        v_tilde_aud_r: field("v_tilde_aud_r"), r_tilde_aud_r: field("r_tilde_aud_r"), v_tilde_aud_s: field("v_tilde_aud_s"),
        b_tilde_aud_s: field("b_tilde_aud_s")
      }
    }
  }
}
