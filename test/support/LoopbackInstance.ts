// A contract's instance as a node stores it and getLedgerEntries serves it (stellar/stellar-rpc,
// cmd/stellar-rpc/internal/methods/get_ledger_entries.go: `xdr` is the entry's LedgerEntryData, with
// `lastModifiedLedgerSeq` and `liveUntilLedgerSeq`): ContractData {contract, key: LedgerKeyContractInstance, durability:
// persistent, val: ScContractInstance {executable: its Wasm's hash, storage: its instance storage, an ScMap}}
// (Stellar-contract.x, Stellar-ledger-entries.x).
import { Address, Contract, xdr } from "@stellar/stellar-sdk"
import { createHash } from "node:crypto"

/**
 * A `#[contracttype]` enum's unit variant as the host stores it: the one-element tuple of its name's Symbol
 * (soroban-sdk-macros/src/derive_enum.rs: a variant without fields converts as `(DISCRIMINANT_SYM,)`).
 */
export const unitVariant = (name: string): xdr.ScVal => xdr.ScVal.scvVec([xdr.ScVal.scvSymbol(name)])

/** The Wasm hash a loopback contract runs: any 32 bytes, fixed per code. */
export const wasmHashOf = (code: string): Uint8Array => createHash("sha256").update(`loopback wasm: ${code}`).digest()

/** The one Symbol of a unit variant's key. */
const nameOf = (key: xdr.ScVal): string => {
  const first = key.type === "scvVec" ? key.vec?.[0] : undefined
  if (first?.type !== "scvSymbol") throw new TypeError("the loopback's instance storage holds unit-variant keys only")
  return first.sym.toString()
}

/**
 * Instance storage sorted by key, as the host keeps an ScMap: one-Symbol vecs compare by their Symbols, and Symbols
 * byte-wise (soroban-env-host's `Compare` of ScVal, not the XDR's bytes, which would put the length first).
 */
const sorted = (entries: ReadonlyArray<xdr.ScMapEntry>): Array<xdr.ScMapEntry> =>
  [...entries].sort((a, b) => Buffer.compare(Buffer.from(nameOf(a.key)), Buffer.from(nameOf(b.key))))

/** The contract whose instance `key` asks for, when it asks for one. */
export const instanceContractOf = (key: xdr.LedgerKey): string | undefined => {
  if (key.type !== "contractData") return undefined
  const data = key.contractData
  if (data.key.type !== "scvLedgerKeyContractInstance" || data.durability !== xdr.ContractDataDurability.persistent) return undefined
  return data.contract.type === "scAddressTypeContract" ? Address.fromScAddress(data.contract).toString() : undefined
}

/** The entry getLedgerEntries hands out for a contract's instance (base64 LedgerEntryData). */
export const instanceEntry = (contract: string, wasmHash: Uint8Array, storage: ReadonlyArray<xdr.ScMapEntry>): string =>
  xdr.LedgerEntryData.contractData(new xdr.ContractDataEntry({
    ext: xdr.ExtensionPoint.v0(),
    contract: new Contract(contract).address().toScAddress(),
    key: xdr.ScVal.scvLedgerKeyContractInstance(),
    durability: xdr.ContractDataDurability.persistent,
    val: xdr.ScVal.scvContractInstance(new xdr.ScContractInstance({
      executable: xdr.ContractExecutable.contractExecutableWasm(wasmHash),
      storage: sorted(storage)
    }))
  })).toXdr("base64")
