// An emulation of OpenZeppelin's confidential token for the loopback RPC, in either version of
// ConfidentialTokenVersion.ts: OpenZeppelin/stellar-contracts at 8af46e2c (the default) or at 0fd261c2, files
// packages/tokens/src/confidential/mod.rs (the `ConfidentialToken` trait, `ConfidentialTokenError` 3500–3514, the
// events), storage.rs (`ConfidentialAccount`, `TransferPayload`, `TransferData`, `decode_data`, `get_account`,
// `confidential_transfer`), compliance/mod.rs and compliance/storage.rs (`ComplianceHooks::on_transfer`,
// `gate_account`, `is_frozen`, `freeze`, `unfreeze`, `set_compliance_config`, `ComplianceError` 3600–3606) and
// auditor/storage.rs (`get_key`, `AuditorError::AuditorNotRegistered` 3301); `Point` is `BytesN<64>`
// (packages/contract-utils/src/crypto/grumpkin.rs).
//
// Emulated: `confidential_balance` and `confidential_transfer` (decoding that version's `TransferData`, gating both
// parties through the compliance hooks once compliance is configured, looking up both auditors' keys, and
// publishing that version's `Transfer` event as `#[contractevent]` encodes it: see ConfidentialEvents.ts);
// `register` (8af46e2c's `RegisterData`), and through the loopback's `registerConfidential` (and
// `registerConfidentialWithEvent`, which publishes the `Register` event); the deployment's compliance admin calls
// (`set_compliance_config`, `freeze`, `unfreeze`) and the auditor registry's keys through this class's methods.
//
// Proving mode (the `verifier` option, 8af46e2c): `register`, `deposit`, `merge`, `withdraw` and
// `confidential_transfer` run as storage.rs has them — the commitments kept and added on Grumpkin, the public inputs
// assembled in its order and checked canonical (3514, LoopbackPublicInputs.ts), every proof verified with bb.js
// against the verification key of the project's circuit (3506 InvalidProof), the auditor and verifier registries
// served (`get_key`, `get_verification_key`) and the underlying asset's balances kept here. Without it, any
// well-formed proof is accepted and the commitments are stand-ins (suites about the service, not the proof).
// In either mode the token's contract instance is served (getLedgerEntries: its underlying asset and registries in
// instance storage, LoopbackInstance.ts) and so are the underlying asset's SEP-41 reads (LoopbackUnderlyingAsset.ts).
// Not emulated, so they fail loudly: the other trait functions; compliance policies and the SAC passthrough.
import { Address, scValToNative, StrKey, xdr } from "@stellar/stellar-sdk"
import { createHash } from "node:crypto"
import { canonicalBytes, structVal } from "./ConfidentialData.ts"
import { confidentialEventsOf } from "./ConfidentialEvents.ts"
import {
  DEFAULT_TOKEN_VERSION, EVENT_BYTES_FIELDS, POINT_BYTES, TOKEN_FUNCTIONS, TRANSFER_AMOUNT_FIELD, TRANSFER_PAYLOAD, type TokenVersion
} from "./ConfidentialTokenVersion.ts"
import { tokenEvents, type PublishedEvent } from "./LoopbackEvents.ts"
import { unitVariant } from "./LoopbackInstance.ts"
import { underlyingAssetFunctions } from "./LoopbackUnderlyingAsset.ts"
import { AuditorError, LoopbackAuditorRegistry } from "./LoopbackAuditorRegistry.ts"
import { Versioned } from "./LoopbackVersioned.ts"
import { addPoints, auditorPublicKey, contractField, accountField, depositCommitment } from "./LoopbackGrumpkin.ts"
import type { LoopbackProofVerifier } from "./LoopbackProofVerifier.ts"
import { NonCanonical, registerInputs, transferInputs, withdrawInputs } from "./LoopbackPublicInputs.ts"
import {
  argumentCountMismatch, argumentTypeMismatch, calleeContractError, contractError, hostFunctionError, notEmulated
} from "./LoopbackXdr.ts"
import type { ContractCallContext, ContractHandler } from "./LoopbackTypes.ts"

/** storage.rs `ConfidentialAccount`. */
export interface LoopbackConfidentialAccount {
  readonly spendingPublicKey: Uint8Array
  readonly viewingPublicKey: Uint8Array
  readonly spendableCommitment: Uint8Array
  readonly receivingCommitment: Uint8Array
  readonly auditorId: number
}

/** compliance/storage.rs `ComplianceConfig`: `policy` absent is `None`. */
export interface LoopbackComplianceConfig {
  readonly policy?: string
  readonly sacPassthrough: boolean
}

/** The codes the emulation raises: mod.rs `ConfidentialTokenError`, compliance/mod.rs, auditor/mod.rs. */
export const ConfidentialTokenError = {
  AccountAlreadyRegistered: 3500, AccountNotRegistered: 3501, NegativeAmount: 3502, InvalidProof: 3506, InvalidData: 3507,
  NonCanonicalEncoding: 3514
} as const
/** The underlying Stellar Asset Contract's `BalanceError` (soroban-env-host's SAC: #10, balance is not sufficient). */
export const UnderlyingBalanceError = 10
export const ComplianceError = { NotConfigured: 3600, AccountFrozen: 3601 } as const
export { AuditorError }

/** The functions of 8af46e2c's `ConfidentialToken` trait and their arity (TOKEN_FUNCTIONS has both versions'). */
export const CONFIDENTIAL_TOKEN_FUNCTIONS: ReadonlyMap<string, number> = TOKEN_FUNCTIONS[DEFAULT_TOKEN_VERSION]

const IDENTITY = new Uint8Array(POINT_BYTES) // Grumpkin::identity(): the all-zero encoding

const isAddress = (v: xdr.ScVal | undefined): v is xdr.ScVal =>
  v?.type === "scvAddress" && (v.address.type === "scAddressTypeAccount" || v.address.type === "scAddressTypeContract")

/**
 * A `#[contracttype]` struct's ScMap as soroban-sdk 26's `map_unpack_to_slice` takes it: exactly these symbol keys,
 * in this (sorted) order; a missing, extra or renamed field fails the conversion.
 */
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


export interface LoopbackConfidentialTokenOptions {
  /** Which version of the token this deployment runs (default 8af46e2c). */
  readonly version?: TokenVersion
  /** Publishes events of this contract in the next ledger (the loopback's `publishEvents`). */
  readonly publish?: (events: ReadonlyArray<PublishedEvent>) => void
  /**
   * Verifies proofs for real (8af46e2c only): `register`, `deposit`, `merge`, `withdraw` and `confidential_transfer`
   * run as storage.rs has them — commitments kept and added on Grumpkin, the public inputs assembled in its order and
   * verified with bb.js — and the underlying asset's balances are kept here (`mintUnderlying`). Without it, any
   * well-formed proof is accepted and only `register`, `confidential_transfer` and `confidential_balance` are emulated.
   */
  readonly verifier?: LoopbackProofVerifier
}

/** `CircuitType` (verifier/mod.rs, `#[repr(u32)]`): the verifier registry's key for each circuit. */
export const CIRCUIT_TYPES: ReadonlyArray<string> = ["register", "withdraw", "transfer", "spender_transfer", "set_spender", "revoke_spender"]

export class LoopbackConfidentialToken {
  readonly contractId: string
  /** The auditor registry the token was constructed with (`get_auditor`): a contract address of its own. */
  readonly auditorRegistry: string
  readonly #latestLedger: () => number
  readonly #publish: (events: ReadonlyArray<PublishedEvent>) => void
  #version: TokenVersion
  readonly #accounts = new Map<string, Versioned<LoopbackConfidentialAccount | undefined>>()
  readonly #compliance = new Versioned<LoopbackComplianceConfig | undefined>(undefined)
  readonly #frozen = new Map<string, Versioned<boolean>>()
  /** The auditor registry's keys, operator and functions (LoopbackAuditorRegistry.ts). */
  readonly auditors: LoopbackAuditorRegistry
  readonly #verifier: LoopbackProofVerifier | undefined
  readonly #underlying = new Map<string, Versioned<bigint>>()
  /** The verifier registry the token calls (`get_verifier`): `get_verification_key(circuit_type)` is served there. */
  readonly verifierRegistry: string
  /** The SEP-41 asset the token wraps (storage.rs `UnderlyingAsset`): its reads are served there (LoopbackUnderlyingAsset.ts). */
  readonly underlyingAsset: string
  /** The ledger the token was deployed in: its instance exists from then on. */
  readonly deployedAt: number
  readonly #dropped = new Set<string>()

  constructor(contractId: string, latestLedger: () => number, options: LoopbackConfidentialTokenOptions = {}) {
    this.contractId = contractId
    this.auditorRegistry = StrKey.encodeContract(createHash("sha256").update(`auditor registry of ${contractId}`).digest())
    this.auditors = new LoopbackAuditorRegistry(this.auditorRegistry, contractId, latestLedger)
    this.#latestLedger = latestLedger
    this.#version = options.version ?? DEFAULT_TOKEN_VERSION
    this.#publish = options.publish ?? (() => {})
    this.#verifier = options.verifier
    this.verifierRegistry = StrKey.encodeContract(createHash("sha256").update(`verifier registry of ${contractId}`).digest())
    this.underlyingAsset = StrKey.encodeContract(createHash("sha256").update(`underlying asset of ${contractId}`).digest())
    this.deployedAt = latestLedger()
  }

  /**
   * The token's instance storage as its constructor leaves it (storage.rs `set_underlying_asset`, `set_verifier`,
   * `set_auditor`, `set_address_as_field`): `ConfidentialTokenStorageKey`'s unit variants, each an `Address` but
   * `AddressAsField` (`BytesN<32>`). `dropInstanceKey` leaves one out, as a token never initialized with it.
   */
  instanceStorage(): ReadonlyArray<xdr.ScMapEntry> {
    const address = (id: string) => new Address(id).toScVal()
    const stored: ReadonlyArray<readonly [string, xdr.ScVal]> = [
      ["UnderlyingAsset", address(this.underlyingAsset)],
      ["Verifier", address(this.verifierRegistry)],
      ["Auditor", address(this.auditorRegistry)],
      ["AddressAsField", xdr.ScVal.scvBytes(Buffer.from(contractField(this.contractId)))]
    ]
    return stored.filter(([name]) => !this.#dropped.has(name)).map(([name, val]) => new xdr.ScMapEntry({ key: unitVariant(name), val }))
  }

  dropInstanceKey(name: "UnderlyingAsset" | "Verifier" | "Auditor"): void {
    this.#dropped.add(name)
  }

  /** The underlying asset's SEP-41 reads (`balance`, `decimals`, `name`, `symbol`) over the balances kept here. */
  underlyingFunctions(): ReadonlyMap<string, ContractHandler> {
    return underlyingAssetFunctions(this.underlyingAsset, (address, asOf) => this.underlyingBalance(address, asOf))
  }

  /** Whether proofs are verified (the `verifier` option). */
  get proving(): boolean {
    return this.#verifier !== undefined
  }

  /**
   * The auditor registry's key for `auditorId` as of `asOf` (auditor/storage.rs `get_key`), x‖y: the point registered
   * under it, else a fixed point per id (LoopbackAuditorRegistry.ts).
   */
  auditorKey(auditorId: number, asOf = Number.POSITIVE_INFINITY): Uint8Array {
    return this.auditors.key(auditorId, asOf) ?? auditorPublicKey(this.contractId, auditorId)
  }

  /** The underlying asset's balance of `address` as of `ledger` (default: now). */
  underlyingBalance(address: string, ledger = Number.POSITIVE_INFINITY): bigint {
    return this.#underlying.get(address)?.at(ledger) ?? 0n
  }

  /** Credits `amount` of the underlying asset to `address` as of the latest ledger (a faucet, or a mint). */
  mintUnderlying(address: string, amount: bigint): void {
    Address.fromString(address)
    this.#setUnderlying(address, this.underlyingBalance(address) + amount, this.#latestLedger())
  }

  /**
   * The functions of the registries the token calls: the auditor's (`get_key`, and the operator's `register_key`,
   * `rotate_key`) and the verifier's `get_verification_key`.
   */
  registryFunctions(): ReadonlyMap<string, ReadonlyMap<string, ContractHandler>> {
    const u32 = (v: xdr.ScVal | undefined) => v?.type === "scvU32"
    const auditor = this.auditors.functions()
    const verifier = new Map<string, ContractHandler>([["get_verification_key", (args, ctx) => {
      if (args.length !== 1 || !u32(args[0])) throw argumentTypeMismatch(this.verifierRegistry, ctx.fn)
      const vk = this.#verifier?.vks[CIRCUIT_TYPES[(args[0] as Extract<xdr.ScVal, { type: "scvU32" }>).u32] ?? ""]
      if (vk === undefined) throw contractError(this.verifierRegistry, 3401) // VerifierError::VerificationKeyNotRegistered
      return xdr.ScVal.scvBytes(Buffer.from(vk))
    }]])
    return new Map([[this.auditorRegistry, auditor], [this.verifierRegistry, verifier]])
  }

  /** The version of the token's code this deployment runs. */
  get version(): TokenVersion {
    return this.#version
  }

  /**
   * Runs `version`'s code from now on, as an upgrade (`update_current_contract_wasm`) would: the stored accounts,
   * compliance settings and freezes stay (`ConfidentialAccount` is the same struct in both versions). Give the
   * loopback the new function table with `functions()`.
   */
  upgrade(version: TokenVersion): void {
    this.#version = version
  }

  /** Registers `address` as of the latest ledger: storage.rs `register` stores both commitments as the identity. */
  register(
    address: string,
    account?: { viewingPublicKey?: Uint8Array; spendingPublicKey?: Uint8Array; auditorId?: number }
  ): { viewingPublicKey: Uint8Array; spendingPublicKey: Uint8Array; auditorId: number } {
    Address.fromString(address)
    const point = (key: Uint8Array | undefined, what: string) => {
      if (key !== undefined && key.length !== POINT_BYTES) throw new RangeError(`${what} must be a ${POINT_BYTES}-byte Grumpkin point`)
      return Uint8Array.from(key ?? canonicalBytes(POINT_BYTES))
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
    return this.#accounts.get(address)?.at(ledger)
  }

  /**
   * The deployment's `set_compliance_config(config, operator)` (compliance/storage.rs `set_compliance_config`), as
   * of the latest ledger, with its `compliance_config_changed` event in the next one. The gates consult the freeze
   * flags only: a policy or the SAC passthrough is not emulated, and a transfer under either fails loudly.
   */
  setComplianceConfig(config: LoopbackComplianceConfig = { sacPassthrough: false }): void {
    if (config.policy !== undefined) Address.fromString(config.policy)
    this.#compliance.write({ ...config }, this.#latestLedger())
    this.#publish([confidentialEventsOf(this.#version).complianceConfigChanged(config)])
  }

  /** The compliance configuration as of `ledger` (default: now); undefined when none was set. */
  complianceConfig(ledger = Number.POSITIVE_INFINITY): LoopbackComplianceConfig | undefined {
    return this.#compliance.at(ledger)
  }

  /**
   * The deployment's `freeze(account, operator)` (compliance/storage.rs `freeze`), as of the latest ledger, with its
   * `frozen` event in the next one; without a compliance configuration it fails as the contract does (#3600).
   */
  freeze(address: string): void {
    this.#setFrozen(address, true)
  }

  /** `unfreeze(account, operator)`: as `freeze`, with the `unfrozen` event. */
  unfreeze(address: string): void {
    this.#setFrozen(address, false)
  }

  /** compliance/storage.rs `is_frozen` as of `ledger` (default: now): false whenever compliance is not configured. */
  isFrozen(address: string, ledger = Number.POSITIVE_INFINITY): boolean {
    return this.#compliance.at(ledger) !== undefined && (this.#frozen.get(address)?.at(ledger) ?? false)
  }

  /**
   * The auditor registry (auditor/mod.rs `ConfidentialAuditor`) holds a key for every auditor id unless told
   * otherwise: `removeAuditorKey(id)` makes `get_key(id)` fail with AuditorNotRegistered (#3301) from the latest
   * ledger on, so transfers from or to accounts bound to that auditor fail; `restoreAuditorKey(id)` undoes it.
   */
  removeAuditorKey(auditorId: number): void {
    this.auditors.removeKey(auditorId)
  }

  restoreAuditorKey(auditorId: number): void {
    this.auditors.restoreKey(auditorId)
  }

  /** Every function of this version's trait, for the loopback's contract table. */
  functions(): ReadonlyMap<string, ContractHandler> {
    const table = new Map<string, ContractHandler>()
    for (const [fn, arity] of TOKEN_FUNCTIONS[this.#version]) {
      table.set(fn, (args) => {
        if (args.length !== arity) throw argumentCountMismatch(this.contractId, fn)
        throw notEmulated(this.contractId, fn, `ConfidentialToken::${fn}`)
      })
    }
    table.set("confidential_balance", (args, ctx) => this.#confidentialBalance(args, ctx))
    table.set("confidential_transfer", (args, ctx) => this.#confidentialTransfer(args, ctx))
    if (this.#version === "8af46e2c") table.set("register", (args, ctx) => this.#registerCall(args, ctx))
    if (this.#verifier !== undefined && this.#version === "8af46e2c") {
      table.set("deposit", (args, ctx) => this.#deposit(args, ctx))
      table.set("merge", (args, ctx) => this.#merge(args, ctx))
      table.set("withdraw", (args, ctx) => this.#withdraw(args, ctx))
    }
    return table
  }

  #write(address: string, account: LoopbackConfidentialAccount | undefined, ledger: number): void {
    let versions = this.#accounts.get(address)
    if (versions === undefined) {
      versions = new Versioned<LoopbackConfidentialAccount | undefined>(undefined)
      this.#accounts.set(address, versions)
    }
    versions.write(account, ledger)
  }

  #setFrozen(address: string, frozen: boolean): void {
    Address.fromString(address)
    const now = this.#latestLedger()
    if (this.#compliance.at(now) === undefined) throw contractError(this.contractId, ComplianceError.NotConfigured)
    let flags = this.#frozen.get(address)
    if (flags === undefined) {
      flags = new Versioned(false)
      this.#frozen.set(address, flags)
    }
    flags.write(frozen, now)
    const events = confidentialEventsOf(this.#version)
    this.#publish([frozen ? events.frozen(address) : events.unfrozen(address)])
  }

  /** storage.rs `get_account`: AccountNotRegistered when absent. */
  #registered(address: string, ctx: ContractCallContext): LoopbackConfidentialAccount {
    const account = this.account(address, ctx.asOf)
    if (account === undefined) throw contractError(this.contractId, ConfidentialTokenError.AccountNotRegistered)
    return account
  }

  /** compliance/mod.rs `ComplianceHooks::on_transfer`: `gate_account(from)`, then `gate_account(to)`. */
  #gate(addresses: ReadonlyArray<string>, ctx: ContractCallContext): void {
    const config = this.#compliance.at(ctx.asOf)
    if (config === undefined) return
    if (config.policy !== undefined || config.sacPassthrough) {
      throw notEmulated(this.contractId, ctx.fn, "a compliance policy or the SAC passthrough")
    }
    for (const address of addresses) {
      if (this.isFrozen(address, ctx.asOf)) throw contractError(this.contractId, ComplianceError.AccountFrozen)
    }
  }

  /** auditor/storage.rs `get_key(auditor_id)`, called through the registry's client. */
  #auditorKey(auditorId: number, ctx: ContractCallContext): void {
    if (this.auditors.key(auditorId, ctx.asOf) === undefined) {
      throw calleeContractError(this.contractId, this.auditorRegistry, "get_key", [xdr.ScVal.scvU32(auditorId)], AuditorError.AuditorNotRegistered)
    }
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
   * mod.rs `confidential_transfer(from, to, data)`: `from.require_auth()`, `decode_data::<TransferData>`, the hook
   * `on_transfer`, then storage.rs `confidential_transfer`: both accounts registered, the recipient's then the
   * sender's auditor key, `set_spendable(from, c_spend_new)`, `add_to_receiving(to, c_tx | c_transfer)`, the event.
   */
  #confidentialTransfer(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress, isAddress, (v) => v?.type === "scvBytes"])
    const from = Address.fromScVal(args[0]!).toString()
    const to = Address.fromScVal(args[1]!).toString()
    ctx.requireAuth(from)
    const version = this.#version
    const { payload, proof } = this.#decodeTransferData(bytesOf(args[2])!, version)
    this.#gate([from, to], ctx)
    const sender = this.#registered(from, ctx)
    const recipient = this.#registered(to, ctx)
    this.#auditorKey(recipient.auditorId, ctx)
    this.#auditorKey(sender.auditorId, ctx)
    if (this.#verifier !== undefined) {
      this.#verify("transfer", () => transferInputs({
        spendable: sender.spendableCommitment, y: sender.spendingPublicKey, pvkB: recipient.viewingPublicKey,
        addrF: contractField(this.contractId), kAudR: this.auditorKey(recipient.auditorId, ctx.asOf), kAudS: this.auditorKey(sender.auditorId, ctx.asOf), payload
      }), proof)
    }
    if (ctx.phase === "apply" && this.#verifier !== undefined) {
      this.#write(from, { ...sender, spendableCommitment: payload.get("c_spend_new")! }, ctx.ledger)
      const current = this.account(to, ctx.ledger)!
      this.#write(to, { ...current, receivingCommitment: addPoints(current.receivingCommitment, payload.get(TRANSFER_AMOUNT_FIELD[version])!) }, ctx.ledger)
      const names: ReadonlyArray<string> = EVENT_BYTES_FIELDS[version].transfer
      const event = confidentialEventsOf(version).transfer(from, to, Object.fromEntries(names.map((name) => [name, payload.get(name)!])))
      ctx.emit(event.topics, event.data)
    } else if (ctx.phase === "apply") {
      const amount = payload.get(TRANSFER_AMOUNT_FIELD[version])!
      this.#write(from, { ...sender, spendableCommitment: payload.get("c_spend_new")! }, ctx.ledger)
      const current = from === to ? { ...sender, spendableCommitment: payload.get("c_spend_new")! } : recipient
      // Grumpkin::add(O, c) = c; other sums are beyond the emulation: a fresh canonical 64-byte value stands in
      const sum = Buffer.from(current.receivingCommitment).equals(IDENTITY) ? amount : Uint8Array.from(canonicalBytes(POINT_BYTES))
      this.#write(to, { ...current, receivingCommitment: sum }, ctx.ledger)
      const names: ReadonlyArray<string> = EVENT_BYTES_FIELDS[version].transfer
      const event = confidentialEventsOf(version).transfer(from, to, Object.fromEntries(names.map((name) => [name, payload.get(name)!])))
      ctx.emit(event.topics, event.data)
    }
    return xdr.ScVal.scvVoid()
  }

  /**
   * storage.rs `decode_data`: `<Op>Data::from_xdr` (`{ payload, proof }`). Bytes that are no ScVal make the host's
   * `deserialize_from_bytes` fail (soroban-sdk's FromXdr unwraps it); an ScVal of another shape — another
   * version's payload included — is InvalidData.
   */
  #decodeData(data: Uint8Array, shape: ReadonlyArray<readonly [string, number]>): { payload: ReadonlyMap<string, Uint8Array>; proof: Uint8Array } {
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
    const [payload, proofVal] = fieldsOf(value, ["payload", "proof"]) ?? []
    const fields = fieldsOf(payload, shape.map(([name]) => name))
    const proof = bytesOf(proofVal)
    if (fields === undefined || proof === undefined) throw invalid()
    const raw = fields.map((v, i) => bytesOf(v, shape[i]![1]))
    if (raw.some((r) => r === undefined)) throw invalid()
    return { payload: new Map(shape.map(([name], i) => [name, raw[i]!])), proof }
  }

  #decodeTransferData(data: Uint8Array, version: TokenVersion): { payload: ReadonlyMap<string, Uint8Array>; proof: Uint8Array } {
    return this.#decodeData(data, TRANSFER_PAYLOAD[version])
  }

  /** storage.rs `verify`: NonCanonicalEncoding while assembling, InvalidProof when the verifier answers false. */
  #verify(circuit: string, inputs: () => Uint8Array, proof: Uint8Array): void {
    let publicInputs: Uint8Array
    try {
      publicInputs = inputs()
    } catch (e) {
      if (e instanceof NonCanonical) throw contractError(this.contractId, ConfidentialTokenError.NonCanonicalEncoding)
      throw e
    }
    if (!this.#verifier!.verify(circuit, publicInputs, proof)) throw contractError(this.contractId, ConfidentialTokenError.InvalidProof)
  }

  #setUnderlying(address: string, amount: bigint, ledger: number): void {
    let versions = this.#underlying.get(address)
    if (versions === undefined) {
      versions = new Versioned(0n)
      this.#underlying.set(address, versions)
    }
    versions.write(amount, ledger)
  }

  /** mod.rs `register(account, auditor_id, data)`: `account.require_auth()`, `RegisterData`, then storage.rs `register`. */
  #registerCall(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress, (v) => v?.type === "scvU32", (v) => v?.type === "scvBytes"])
    const account = Address.fromScVal(args[0]!).toString()
    const auditorId = (args[1] as Extract<xdr.ScVal, { type: "scvU32" }>).u32
    ctx.requireAuth(account)
    const { payload, proof } = this.#decodeData(bytesOf(args[2])!, REGISTER_PAYLOAD)
    this.#auditorKey(auditorId, ctx)
    const y = payload.get("y")!
    const pvk = payload.get("pvk")!
    if (this.#verifier !== undefined) {
      this.#verify("register", () => registerInputs({ y, pvk, addrF: contractField(this.contractId), acctF: accountField(account) }), proof)
    }
    if (this.account(account, ctx.asOf) !== undefined) throw contractError(this.contractId, ConfidentialTokenError.AccountAlreadyRegistered)
    if (ctx.phase === "apply") {
      this.#write(account, {
        spendingPublicKey: y, viewingPublicKey: pvk, auditorId, spendableCommitment: IDENTITY, receivingCommitment: IDENTITY
      }, ctx.ledger)
      const event = tokenEvents.register(account, auditorId)
      ctx.emit(event.topics, event.data)
    }
    return xdr.ScVal.scvVoid()
  }

  /** mod.rs `deposit(from, to, amount)`: `from.require_auth()`; storage.rs `deposit`: the underlying moves, receiving += a·G. */
  #deposit(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress, isAddress, (v) => v?.type === "scvI128"])
    const from = Address.fromScVal(args[0]!).toString()
    const to = Address.fromScVal(args[1]!).toString()
    const amount = BigInt(scValToNative(args[2]!) as bigint)
    ctx.requireAuth(from)
    if (amount < 0n) throw contractError(this.contractId, ConfidentialTokenError.NegativeAmount)
    const recipient = this.#registered(to, ctx)
    const balance = this.underlyingBalance(from, ctx.asOf)
    if (balance < amount) throw contractError(this.contractId, UnderlyingBalanceError)
    if (ctx.phase === "apply") {
      this.#setUnderlying(from, balance - amount, ctx.ledger)
      this.#setUnderlying(this.contractId, this.underlyingBalance(this.contractId, ctx.ledger) + amount, ctx.ledger)
      this.#write(to, { ...recipient, receivingCommitment: addPoints(recipient.receivingCommitment, depositCommitment(amount)) }, ctx.ledger)
      const event = tokenEvents.deposit(from, to, amount)
      ctx.emit(event.topics, event.data)
    }
    return xdr.ScVal.scvVoid()
  }

  /** mod.rs `merge(account)`: `account.require_auth()`; storage.rs `merge`: spendable += receiving, receiving = O. */
  #merge(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress])
    const address = Address.fromScVal(args[0]!).toString()
    ctx.requireAuth(address)
    const account = this.#registered(address, ctx)
    if (ctx.phase === "apply") {
      this.#write(address, {
        ...account, spendableCommitment: addPoints(account.spendableCommitment, account.receivingCommitment), receivingCommitment: IDENTITY
      }, ctx.ledger)
      const event = tokenEvents.merge(address)
      ctx.emit(event.topics, event.data)
    }
    return xdr.ScVal.scvVoid()
  }

  /** mod.rs `withdraw(from, to, amount, data)`: `from.require_auth()`, `WithdrawData`, then storage.rs `withdraw`. */
  #withdraw(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): xdr.ScVal {
    this.#arguments(args, ctx, [isAddress, isAddress, (v) => v?.type === "scvI128", (v) => v?.type === "scvBytes"])
    const from = Address.fromScVal(args[0]!).toString()
    const to = Address.fromScVal(args[1]!).toString()
    const amount = BigInt(scValToNative(args[2]!) as bigint)
    ctx.requireAuth(from)
    const { payload, proof } = this.#decodeData(bytesOf(args[3])!, WITHDRAW_PAYLOAD)
    if (amount < 0n) throw contractError(this.contractId, ConfidentialTokenError.NegativeAmount)
    const account = this.#registered(from, ctx)
    this.#auditorKey(account.auditorId, ctx)
    this.#verify("withdraw", () => withdrawInputs({
      spendable: account.spendableCommitment, y: account.spendingPublicKey, addrF: contractField(this.contractId),
      kAudS: this.auditorKey(account.auditorId, ctx.asOf), amount, payload
    }), proof)
    if (ctx.phase === "apply") {
      this.#write(from, { ...account, spendableCommitment: payload.get("c_spend_new")! }, ctx.ledger)
      this.#setUnderlying(this.contractId, this.underlyingBalance(this.contractId, ctx.ledger) - amount, ctx.ledger)
      this.#setUnderlying(to, this.underlyingBalance(to, ctx.ledger) + amount, ctx.ledger)
      const event = tokenEvents.withdraw(from, to, amount, {
        r_e_point: payload.get("r_e_point")!, sigma: payload.get("sigma")!, b_tilde: payload.get("b_tilde")!,
        b_tilde_aud_s: payload.get("b_tilde_aud_s")!
      })
      ctx.emit(event.topics, event.data)
    }
    return xdr.ScVal.scvVoid()
  }
}

/** storage.rs `RegisterPayload` and `WithdrawPayload` (8af46e2c): fields sorted as the ScMap holds them. */
const REGISTER_PAYLOAD: ReadonlyArray<readonly [string, number]> = [["pvk", POINT_BYTES], ["y", POINT_BYTES]]
const WITHDRAW_PAYLOAD: ReadonlyArray<readonly [string, number]> = [
  ["b_tilde", 32], ["b_tilde_aud_s", 32], ["c_spend_new", POINT_BYTES], ["r_e_point", POINT_BYTES], ["sigma", 32]
]
