// Accounts of the loopback RPC's ledger: the stored state and its AccountEntry XDR.
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
