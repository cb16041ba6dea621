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

/** The last link of an organization's chain: what the next row links to. */
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
export const linkHash = (prevHash: Uint8Array, row: ChainContent, position: number): Uint8Array =>
  createHash("sha256").update(prevHash).update(canonical(row, position), "utf8").digest()

/**
 * The hashes of `rows`, in the order given, after `head`: that order becomes the chain's, the first at
 * `head.position + 1`.
 */
export const link = (head: ChainHead, rows: ReadonlyArray<ChainContent>): ReadonlyArray<Uint8Array> => {
  let previous = head.hash
  return rows.map((row, i) => (previous = linkHash(previous, row, head.position + 1 + i)))
}

/**
 * One place of the chain as verification reads it back: the position and hash a seal recorded for the row `id`, and
 * the row as the table holds it now (`null` when it is gone). A hand edit may have changed any of them.
 */
export interface Slot {
  readonly position: number
  readonly id: string
  readonly hash: Uint8Array | null
  readonly row: ChainContent | null
}

/** Whether two hashes are the same bytes. */
export const sameHash = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)

/**
 * Places checked, the chain's head after the last intact one, the first entry that breaks it when one does, and the
 * hash at the `watch` position when the walk passed it intact.
 */
export interface Walked {
  readonly checked: number
  readonly head: ChainHead
  readonly brokenId: Option.Option<string>
  readonly watched: Option.Option<Uint8Array>
}

/**
 * Walks `slots`, in position order, on from `head` (GENESIS, or where the previous page ended) and stops at the first
 * that breaks the chain: a position that does not follow (a seal removed or moved), a row that is gone (removed by
 * hand), a row whose id is not the one sealed there, or a recorded hash its content does not give (a field changed, or
 * the seal's hash edited). Counts the places it checked, the broken one included.
 */
export const walk = (head: ChainHead, slots: Iterable<Slot>, watch?: number): Walked => {
  let current = head
  let checked = 0
  let watched = Option.none<Uint8Array>()
  for (const slot of slots) {
    checked += 1
    const { hash, row } = slot
    if (
      slot.position !== current.position + 1 || row === null || row.id !== slot.id || hash === null ||
      !sameHash(hash, linkHash(current.hash, row, slot.position))
    ) return { checked, head: current, brokenId: Option.some(slot.id), watched }
    current = { position: slot.position, hash }
    if (slot.position === watch) watched = Option.some(hash)
  }
  return { checked, head: current, brokenId: Option.none(), watched }
}
