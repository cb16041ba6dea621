import { Option } from "effect"
import { createHash } from "node:crypto"

/** What an audit row says, the part its hash covers besides its position. */
export interface ChainContent {
  readonly id: string
  readonly orgId: string
  readonly at: Date
  readonly actorType: string
  readonly actorId: string
  readonly action: string
  readonly subjectType: string
  readonly subjectId: string
  readonly fromState: string | null
  readonly toState: string | null
  readonly requestId: string | null
}

/** A row as the chain holds it; a hand edit may have emptied any link column, so each may be null. */
export interface LinkedRow extends ChainContent {
  readonly position: number
  readonly prevHash: Uint8Array | null
  readonly hash: Uint8Array | null
}

/** The last linked row of an organization's chain: what the next row links to. */
export interface ChainHead {
  readonly position: number
  readonly hash: Uint8Array
}

/** Before the first row: position 0 and 32 zero bytes, so the first row links like any other. */
export const GENESIS: ChainHead = { position: 0, hash: new Uint8Array(32) }

/**
 * The row's content as the hash reads it: a JSON array in a fixed order, so that neither a field's name nor the
 * order of an object's keys (which the database or a driver may change) is part of it.
 */
export const canonical = (row: ChainContent, position: number): string =>
  JSON.stringify([
    row.id,
    row.orgId,
    row.at.toISOString(),
    row.actorType,
    row.actorId,
    row.action,
    row.subjectType,
    row.subjectId,
    row.fromState,
    row.toState,
    row.requestId,
    position
  ])

/** sha256(prevHash ‖ utf8(canonical)): the previous link is part of every hash, so no row changes alone. */
export const linkHash = (prevHash: Uint8Array, row: ChainContent & { readonly position: number }): Uint8Array =>
  createHash("sha256").update(prevHash).update(canonical(row, row.position), "utf8").digest()

export interface Link {
  readonly id: string
  readonly position: number
  readonly prevHash: Uint8Array
  readonly hash: Uint8Array
}

/** The links of `rows`, in the order given, after `head`: that order becomes the chain's. */
export const link = (head: ChainHead, rows: ReadonlyArray<ChainContent>): ReadonlyArray<Link> => {
  let previous = head
  return rows.map((row) => {
    const position = previous.position + 1
    const hash = linkHash(previous.hash, { ...row, position })
    const linked: Link = { id: row.id, position, prevHash: previous.hash, hash }
    previous = { position, hash }
    return linked
  })
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)

/** Rows checked, the chain's head after the last intact one, and the first row that breaks it, when one does. */
export interface Walked {
  readonly checked: number
  readonly head: ChainHead
  readonly brokenId: Option.Option<string>
}

/**
 * Walks `rows`, in position order, on from `head` (GENESIS, or where the previous page ended) and stops at the first
 * row that breaks the chain: a position that does not follow (a row removed or moved), a `prevHash` other than the
 * previous row's hash (a row removed, inserted or reordered), or a hash its own content does not give (a field
 * changed). Counts the rows it checked, the broken one included.
 */
export const walk = (head: ChainHead, rows: Iterable<LinkedRow>): Walked => {
  let current = head
  let checked = 0
  for (const row of rows) {
    checked += 1
    const { hash, prevHash } = row
    if (
      row.position !== current.position + 1 || prevHash === null || !sameBytes(prevHash, current.hash) ||
      hash === null || !sameBytes(hash, linkHash(current.hash, row))
    ) return { checked, head: current, brokenId: Option.some(row.id) }
    current = { position: row.position, hash }
  }
  return { checked, head: current, brokenId: Option.none() }
}
