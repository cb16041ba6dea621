import { StrKey, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk"
import { txHashHex } from "../Transfers/Envelope.ts"
import type { JobItemRow } from "./JobRepo.ts"

export interface Planned {
  readonly i: number
  readonly item: JobItemRow
  /** The inner transaction's hash (hex), named in its result when it fails; empty when the envelope does not decode. */
  readonly innerHash: string
}

/**
 * Items of one source account, in sequence-number order; undecodable items stand alone. Only the hash is kept of
 * each decoded envelope: a decoded transfer holds about as much again as its XDR (~37 KB, mostly array buffers), and
 * a job's items wait up to a ledger each, in every running job.
 */
export const plan = (items: ReadonlyArray<JobItemRow>, networkPassphrase: string): ReadonlyArray<ReadonlyArray<Planned>> => {
  const groups = new Map<string, Array<Planned & { readonly sequence: bigint }>>()
  const alone: Array<ReadonlyArray<Planned>> = []
  items.forEach((item, i) => {
    let tx: Transaction | undefined
    try {
      const decoded = TransactionBuilder.fromXDR(item.signedXDR, networkPassphrase)
      if ("sequence" in decoded) tx = decoded
    } catch {
      tx = undefined
    }
    const innerHash = tx === undefined ? "" : txHashHex(tx)
    if (tx === undefined || !StrKey.isValidEd25519PublicKey(tx.source)) return alone.push([{ i, item, innerHash }])
    const group = groups.get(tx.source) ?? []
    group.push({ i, item, innerHash, sequence: BigInt(tx.sequence) })
    groups.set(tx.source, group)
  })
  const ordered = [...groups.values()].map((group) =>
    group
      .sort((a, b) => a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : a.i - b.i)
      .map(({ i, item, innerHash }) => ({ i, item, innerHash }))
  )
  return [...ordered, ...alone]
}
