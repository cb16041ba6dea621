import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Option } from "effect"
import { createHash } from "node:crypto"
import { decodeAuditCursor, encodeAuditCursor } from "../../src/Audit/AuditCursor.ts"
import { canonical, type ChainContent, GENESIS, link, linkHash, type Slot, walk } from "../../src/Audit/Chain.ts"

const ORG = "3f9a1c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"

const content = (i: number, overrides: Partial<ChainContent> = {}): ChainContent => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  orgId: ORG,
  at: new Date(Date.UTC(2026, 10, 24, 9, 30, 0, i)),
  actorType: "member",
  actorId: "GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI",
  action: "batch.approved",
  subjectType: "batch",
  subjectId: `batch-${i}`,
  fromState: i % 2 === 0 ? "ready" : null,
  toState: i % 2 === 0 ? "started" : null,
  requestId: i % 3 === 0 ? null : `req-${i}`,
  ...overrides
})

/** The places a seal records for `rows` after `head`, each with the row as the table holds it. */
const linked = (rows: ReadonlyArray<ChainContent>, head = GENESIS): Array<Slot> => {
  const hashes = link(head, rows)
  return rows.map((row, i) => ({ position: head.position + 1 + i, id: row.id, hash: hashes[i]!, row }))
}

const chain = (n: number) => linked(Array.from({ length: n }, (_, i) => content(i + 1)))

const brokenAt = (slots: ReadonlyArray<Slot>) => Option.getOrUndefined(walk(GENESIS, slots).brokenId)

const editRow = (f: (row: ChainContent) => ChainContent) => (slot: Slot): Slot => ({ ...slot, row: f(slot.row!) })

/** Each thing a hand edit could change (a row's column, the row itself, or what its seal recorded), and a change. */
const edits: ReadonlyArray<[string, (slot: Slot) => Slot]> = [
  ["the row's id", editRow((r) => ({ ...r, id: "ffffffff-0000-4000-8000-000000000000" }))],
  ["orgId", editRow((r) => ({ ...r, orgId: "ffffffff-0000-4000-8000-000000000001" }))],
  ["at", editRow((r) => ({ ...r, at: new Date(r.at.getTime() + 1) }))],
  ["actorType", editRow((r) => ({ ...r, actorType: r.actorType === "system" ? "member" : "system" }))],
  ["actorId", editRow((r) => ({ ...r, actorId: `${r.actorId}x` }))],
  ["action", editRow((r) => ({ ...r, action: `${r.action}x` }))],
  ["subjectType", editRow((r) => ({ ...r, subjectType: `${r.subjectType}x` }))],
  ["subjectId", editRow((r) => ({ ...r, subjectId: `${r.subjectId}x` }))],
  ["fromState", editRow((r) => ({ ...r, fromState: r.fromState === null ? "" : null }))],
  ["toState", editRow((r) => ({ ...r, toState: r.toState === null ? "draft" : null }))],
  ["requestId", editRow((r) => ({ ...r, requestId: r.requestId === null ? "req" : null }))],
  ["row (removed)", (s) => ({ ...s, row: null })],
  ["recorded position", (s) => ({ ...s, position: s.position + 1 })],
  ["recorded hash", (s) => ({ ...s, hash: new Uint8Array(32).fill(7) })],
  ["recorded hash (emptied)", (s) => ({ ...s, hash: null })]
]

describe("the audit hash chain", () => {
  it("hashes sha256(prevHash ‖ utf8(the fields as a JSON array in a fixed order)), from 32 zero bytes", () => {
    const row = content(1)
    expect(canonical(row, 1)).toBe(JSON.stringify([
      row.id, ORG, "2026-11-24T09:30:00.001Z", "member", row.actorId, "batch.approved", "batch", "batch-1", null, null,
      "req-1", 1
    ]))
    const [first] = link(GENESIS, [row])
    const expected = createHash("sha256").update(Buffer.alloc(32)).update(canonical(row, 1), "utf8").digest()
    expect(Buffer.from(first!)).toEqual(expected)
    expect(Buffer.from(linkHash(GENESIS.hash, row, 1))).toEqual(expected)
    const [second] = link({ position: 1, hash: first! }, [content(2)])
    expect(Buffer.from(second!)).toEqual(createHash("sha256").update(expected).update(canonical(content(2), 2), "utf8").digest())
  })

  it("links rows in the order given after the head, and an intact chain verifies whole", () => {
    const slots = chain(5)
    const walked = walk(GENESIS, slots)
    expect(walked).toEqual({ checked: 5, head: { position: 5, hash: slots[4]!.hash }, brokenId: Option.none(), watched: Option.none() })
    // The hash at a watched position, which a checkpoint is compared with; none past the chain's end or after a break.
    expect(walk(GENESIS, slots, 3).watched).toEqual(Option.some(slots[2]!.hash))
    expect(walk(GENESIS, slots, 6).watched).toEqual(Option.none())
    const tampered = slots.map((s, i) => i === 1 ? editRow((r) => ({ ...r, action: "payout.settled" }))(s) : s)
    expect(walk(GENESIS, tampered, 3).watched).toEqual(Option.none())
    expect(walk(GENESIS, tampered, 1).watched).toEqual(Option.some(slots[0]!.hash))
    const more = linked([content(6), content(7)], walked.head)
    expect(more.map((r) => r.position)).toEqual([6, 7])
    expect(walk(GENESIS, [...slots, ...more]).checked).toBe(7)
  })

  it("walks page by page from where the last page ended, as it would whole", () => {
    const slots = chain(10)
    let head = GENESIS
    for (const page of [slots.slice(0, 4), slots.slice(4, 8), slots.slice(8)]) {
      const walked = walk(head, page)
      expect(walked.brokenId).toEqual(Option.none())
      head = walked.head
    }
    expect(head.position).toBe(10)
    const tampered = slots.map((s, i) => i === 6 ? editRow((r) => ({ ...r, action: "payout.settled" }))(s) : s)
    expect(walk(walk(GENESIS, tampered.slice(0, 4)).head, tampered.slice(4)).brokenId).toEqual(Option.some(slots[6]!.id))
  })

  it.each(edits)("names the place whose %s was changed", (_, edit) => {
    const slots = chain(6)
    const tampered = slots.map((s, i) => i === 3 ? edit(s) : s)
    const walked = walk(GENESIS, tampered)
    expect(walked.brokenId).toEqual(Option.some(slots[3]!.id))
    expect(walked.checked).toBe(4)
  })

  it("names the first place out of order when two are swapped, and the place after a removed seal", () => {
    const slots = chain(6)
    expect(brokenAt([slots[0]!, slots[2]!, slots[1]!, ...slots.slice(3)])).toBe(slots[2]!.id)
    expect(brokenAt([...slots.slice(0, 2), ...slots.slice(3)])).toBe(slots[3]!.id)
    expect(brokenAt(slots.slice(1))).toBe(slots[1]!.id)
    // Rows swapped under their seals (each place keeps its recorded id and hash): the ids no longer match.
    const swapped = slots.map((s, i) => i === 2 ? { ...s, row: slots[3]!.row } : i === 3 ? { ...s, row: slots[2]!.row } : s)
    expect(brokenAt(swapped)).toBe(slots[2]!.id)
  })

  it("holds for generated rows: intact verifies, any one edit or removal is named", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 16 })
    const row = fc.record({
      id: fc.uuid(),
      orgId: fc.constant(ORG),
      at: fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
      actorType: fc.constantFrom("member", "apiKey", "system"),
      actorId: text,
      action: text,
      subjectType: text,
      subjectId: text,
      fromState: fc.option(text, { nil: null }),
      toState: fc.option(text, { nil: null }),
      requestId: fc.option(text, { nil: null })
    })
    const rows = fc.uniqueArray(row, { minLength: 2, maxLength: 30, selector: (r) => r.id })
    fc.assert(fc.property(rows, fc.nat(), fc.nat({ max: edits.length - 1 }), (generated, at, which) => {
      const slots = linked(generated)
      expect(walk(GENESIS, slots)).toMatchObject({ checked: slots.length, brokenId: Option.none() })
      const i = at % slots.length
      const tampered = slots.map((s, j) => j === i ? edits[which]![1](s) : s)
      expect(brokenAt(tampered)).toBe(slots[i]!.id)
      const k = at % (slots.length - 1)
      expect(brokenAt([...slots.slice(0, k), ...slots.slice(k + 1)])).toBe(slots[k + 1]!.id)
    }))
  })
})

describe("audit trail cursors", () => {
  it.effect("round-trip a seq, opaque base64url; anything else is 400", () =>
    Effect.gen(function*() {
      const cursor = encodeAuditCursor(12_841)
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(yield* decodeAuditCursor(cursor)).toBe(12_841)
      const raw = (text: string) => Buffer.from(text).toString("base64url")
      for (const bad of ["", "not a cursor!", "x".repeat(41), raw("0"), raw("-1"), raw("1.5"), raw("01"), raw("99999999999999999")]) {
        expect(yield* Effect.flip(decodeAuditCursor(bad)), bad).toMatchObject({ _tag: "InvalidRequest", error: "invalid cursor" })
      }
    }))
})
