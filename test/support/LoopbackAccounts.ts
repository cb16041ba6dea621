// Accounts of the loopback RPC's ledger: the stored state, its AccountEntry XDR, and how a Soroban
// authorization entry's signature authenticates the account.
import { Keypair, StrKey, xdr } from "@stellar/stellar-sdk"

export interface LoopbackAccountSpec {
  id: string // G... account
  sequence?: bigint // default 1n << 32n
  balance?: bigint // native stroops, default 10_000 XLM
  thresholds?: { master?: number; low?: number; medium?: number; high?: number } // defaults 1,0,0,0
  signers?: ReadonlyArray<{ key: string; weight: number }> // extra ed25519 signers (G... keys)
}

/** The stored state of an account, as returned by `LoopbackRpc.account`. */
export interface LoopbackAccount {
  readonly id: string
  readonly sequence: bigint
  readonly balance: bigint
  readonly thresholds: { readonly master: number; readonly low: number; readonly medium: number; readonly high: number }
  readonly signers: ReadonlyArray<{ readonly key: string; readonly weight: number }>
  readonly lastModifiedLedger: number
}

const DEFAULT_SEQUENCE = 1n << 32n
const DEFAULT_BALANCE = 10_000n * 10_000_000n

const byte = (n: number, what: string): number => {
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`${what} must be an integer in 0..255`)
  return n
}

/** The account `spec` describes; omitted fields keep their value in `prev` (or the default). */
export function accountFromSpec(spec: LoopbackAccountSpec, prev: LoopbackAccount | undefined, ledger: number): LoopbackAccount {
  Keypair.fromPublicKey(spec.id) // validates the G... key
  const t = spec.thresholds
  const signers = (spec.signers ?? prev?.signers ?? []).map((s) => {
    StrKey.decodeEd25519PublicKey(s.key)
    return { key: s.key, weight: byte(s.weight, "signer weight") }
  })
  return {
    id: spec.id,
    sequence: spec.sequence ?? prev?.sequence ?? DEFAULT_SEQUENCE,
    balance: spec.balance ?? prev?.balance ?? DEFAULT_BALANCE,
    thresholds: {
      master: byte(t?.master ?? prev?.thresholds.master ?? 1, "master weight"),
      low: byte(t?.low ?? prev?.thresholds.low ?? 0, "low threshold"),
      medium: byte(t?.medium ?? prev?.thresholds.medium ?? 0, "medium threshold"),
      high: byte(t?.high ?? prev?.thresholds.high ?? 0, "high threshold")
    },
    signers,
    lastModifiedLedger: ledger
  }
}

/** A real AccountEntry for the stored account; signers sorted by key like stellar-core keeps them. */
export function accountEntry(account: LoopbackAccount): xdr.AccountEntry {
  const { master, low, medium, high } = account.thresholds
  const signers = account.signers
    .map((s) => ({ raw: StrKey.decodeEd25519PublicKey(s.key), weight: s.weight }))
    .sort((a, b) => Buffer.compare(a.raw, b.raw))
    .map((s) => new xdr.Signer({ key: xdr.SignerKey.signerKeyTypeEd25519(s.raw), weight: s.weight }))
  return new xdr.AccountEntry({
    accountId: Keypair.fromPublicKey(account.id).xdrPublicKey(), balance: account.balance, seqNum: account.sequence,
    numSubEntries: signers.length, inflationDest: null, flags: 0, homeDomain: "",
    thresholds: Uint8Array.from([master, low, medium, high]), signers, ext: xdr.AccountEntryExt.v0()
  })
}

// ---- Soroban account authentication ----

const MAX_ACCOUNT_SIGNATURES = 20
const hex = (raw: Uint8Array) => `Bytes(${Buffer.from(raw).toString("hex")})`

/** The host's error for a failed authentication: the error, its message and arguments, as diagnostic text. */
export interface AuthenticationFailure {
  readonly error: string
  readonly message: string
  readonly args: ReadonlyArray<string>
}

const signatureOf = (v: xdr.ScVal): { publicKey: Uint8Array; signature: Uint8Array } | undefined => {
  if (v.type !== "scvMap" || v.map?.length !== 2) return undefined
  const [pk, sig] = v.map
  if (pk?.key.type !== "scvSymbol" || pk.key.sym.toString() !== "public_key" || pk.val.type !== "scvBytes") return undefined
  if (sig?.key.type !== "scvSymbol" || sig.key.sym.toString() !== "signature" || sig.val.type !== "scvBytes") return undefined
  const publicKey = pk.val.bytes.toBytes()
  const signature = sig.val.bytes.toBytes()
  return publicKey.length === 32 && signature.length === 64 ? { publicKey, signature } : undefined
}

/**
 * Checks a classic account's signature of a Soroban authorization payload as the host's built-in account
 * contract does (stellar/rs-soroban-env, soroban-env-host/src/builtin_contracts/account_contract.rs,
 * `check_account_authentication`): a vector of `{ public_key, signature }` in increasing key order, each a valid
 * ed25519 signature by a key of the account, weighing at least its medium threshold. Undefined when it passes.
 */
export function authenticateAccount(account: LoopbackAccount | undefined, payload: Uint8Array, signatures: xdr.ScVal): AuthenticationFailure | undefined {
  const refused = (message: string, ...args: Array<string>) => ({ error: "Error(Contract, #5)", message, args }) // AuthenticationError
  if (signatures.type !== "scvVec" || signatures.vec === null) {
    return { error: "Error(Value, UnexpectedType)", message: "account signatures are not a vector", args: [] }
  }
  const list = signatures.vec
  if (list.length > MAX_ACCOUNT_SIGNATURES) return refused("too many account signers", String(list.length))
  if (list.length === 0) return refused("no account signatures found")
  if (account === undefined) return { error: "Error(Storage, MissingValue)", message: "trying to get non-existing value for account", args: [] }
  let previous: Uint8Array | undefined
  let weight = 0
  for (const v of list) {
    const sig = signatureOf(v)
    if (sig === undefined) return { error: "Error(Value, UnexpectedType)", message: "not an account ed25519 signature", args: [] }
    if (previous !== undefined && Buffer.compare(previous, sig.publicKey) >= 0) {
      return refused("public keys are not ordered", hex(previous), hex(sig.publicKey))
    }
    const key = StrKey.encodeEd25519PublicKey(Buffer.from(sig.publicKey))
    if (!Keypair.fromPublicKey(key).verify(Buffer.from(payload), Buffer.from(sig.signature))) {
      return { error: "Error(Crypto, InvalidInput)", message: "failed ED25519 verification", args: [] }
    }
    const signerWeight = key === account.id ? account.thresholds.master : account.signers.find((s) => s.key === key)?.weight ?? 0
    if (signerWeight === 0) return refused("signer does not belong to account", hex(sig.publicKey))
    weight += signerWeight
    previous = sig.publicKey
  }
  const threshold = account.thresholds.medium
  return weight < threshold ? refused("signature weight is lower than threshold", String(weight), String(threshold)) : undefined
}
