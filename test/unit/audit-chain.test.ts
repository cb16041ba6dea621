import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Option } from "effect"
import { createHash } from "node:crypto"
import { decodeAuditCursor, encodeAuditCursor } from "../../src/Audit/AuditCursor.ts"
import { canonical, type ChainContent, GENESIS, link, type LinkedRow, linkHash, walk } from "../../src/Audit/Chain.ts"

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

/** Rows as the database would hold them once linked. */
const linked = (rows: ReadonlyArray<ChainContent>, head = GENESIS): Array<LinkedRow> => {
  const links = link(head, rows)
  return rows.map((row, i) => ({ ...row, ...links[i]! }))
}

const chain = (n: number) => linked(Array.from({ length: n }, (_, i) => content(i + 1)))

const brokenAt = (rows: ReadonlyArray<LinkedRow>) => Option.getOrUndefined(walk(GENESIS, rows).brokenId)

/** Each column a hand edit could change, and a different value for it. */
const edits: ReadonlyArray<[string, (row: LinkedRow) => LinkedRow]> = [
  ["id", (r) => ({ ...r, id: "ffffffff-0000-4000-8000-000000000000" })],
  ["orgId", (r) => ({ ...r, orgId: "ffffffff-0000-4000-8000-000000000001" })],
  ["at", (r) => ({ ...r, at: new Date(r.at.getTime() + 1) })],
  ["actorType", (r) => ({ ...r, actorType: r.actorType === "system" ? "member" : "system" })],
  ["actorId", (r) => ({ ...r, actorId: `${r.actorId}x` })],
  ["action", (r) => ({ ...r, action: `${r.action}x` })],
  ["subjectType", (r) => ({ ...r, subjectType: `${r.subjectType}x` })],
  ["subjectId", (r) => ({ ...r, subjectId: `${r.subjectId}x` })],
  ["fromState", (r) => ({ ...r, fromState: r.fromState === null ? "" : null })],
  ["toState", (r) => ({ ...r, toState: r.toState === null ? "draft" : null })],
  ["requestId", (r) => ({ ...r, requestId: r.requestId === null ? "req" : null })],
  ["position", (r) => ({ ...r, position: r.position + 1 })],
  ["prevHash", (r) => ({ ...r, prevHash: new Uint8Array(32).fill(7) })],
  ["hash", (r) => ({ ...r, hash: new Uint8Array(32).fill(7) })],
  ["hash emptied", (r) => ({ ...r, hash: null })]
]

describe("the audit hash chain", () => {
  it("hashes sha256(prevHash ‖ utf8(the fields as a JSON array in a fixed order)), from 32 zero bytes", () => {
    const row = content(1)
    expect(canonical(row, 1)).toBe(JSON.stringify([
      row.id, ORG, "2026-11-24T09:30:00.001Z", "member", row.actorId, "batch.approved", "batch", "batch-1", null, null,
      "req-1", 1
    ]))
    const [first] = link(GENESIS, [row])
    expect(first!.position).toBe(1)
    expect(Buffer.from(first!.prevHash)).toEqual(Buffer.alloc(32))
    const expected = createHash("sha256").update(Buffer.alloc(32)).update(canonical(row, 1), "utf8").digest()
    expect(Buffer.from(first!.hash)).toEqual(expected)
    expect(Buffer.from(linkHash(GENESIS.hash, { ...row, position: 1 }))).toEqual(expected)
  })

  it("links rows in the order given after the head, and an intact chain verifies whole", () => {
    const rows = chain(5)
    const walked = walk(GENESIS, rows)
    expect(walked).toEqual({ checked: 5, head: { position: 5, hash: rows[4]!.hash }, brokenId: Option.none() })
    const more = linked([content(6), content(7)], walked.head)
    expect(more.map((r) => r.position)).toEqual([6, 7])
    expect(Buffer.from(more[0]!.prevHash!)).toEqual(Buffer.from(rows[4]!.hash!))
    expect(walk(GENESIS, [...rows, ...more]).checked).toBe(7)
  })

  it("walks page by page from where the last page ended, as it would whole", () => {
    const rows = chain(10)
    let head = GENESIS
    for (const page of [rows.slice(0, 4), rows.slice(4, 8), rows.slice(8)]) {
      const walked = walk(head, page)
      expect(walked.brokenId).toEqual(Option.none())
      head = walked.head
    }
    expect(head.position).toBe(10)
    const tampered = rows.map((r, i) => i === 6 ? { ...r, action: "payout.settled" } : r)
    expect(walk(walk(GENESIS, tampered.slice(0, 4)).head, tampered.slice(4)).brokenId).toEqual(Option.some(rows[6]!.id))
  })

  it.each(edits)("names the row whose %s was changed", (_, edit) => {
    const rows = chain(6)
    const tampered = rows.map((r, i) => i === 3 ? edit(r) : r)
    const walked = walk(GENESIS, tampered)
    expect(walked.brokenId).toEqual(Option.some(tampered[3]!.id))
    expect(walked.checked).toBe(4)
  })

  it("names the first row out of place when two are swapped, and the row after a removed one", () => {
    const rows = chain(6)
    expect(brokenAt([rows[0]!, rows[2]!, rows[1]!, ...rows.slice(3)])).toBe(rows[2]!.id)
    expect(brokenAt([...rows.slice(0, 2), ...rows.slice(3)])).toBe(rows[3]!.id)
    expect(brokenAt(rows.slice(1))).toBe(rows[1]!.id)
    // Swapped contents keeping their positions and links: the hashes no longer match.
    const swapped = rows.map((r, i) => i === 2 ? { ...rows[3]!, position: r.position, prevHash: r.prevHash, hash: r.hash } : r)
    expect(brokenAt(swapped)).toBe(rows[3]!.id)
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
      const chained = linked(generated)
      expect(walk(GENESIS, chained)).toMatchObject({ checked: chained.length, brokenId: Option.none() })
      const i = at % chained.length
      const edited = edits[which]![1](chained[i]!)
      const tampered = chained.map((r, j) => j === i ? edited : r)
      expect(brokenAt(tampered)).toBe(edited.id)
      const k = at % (chained.length - 1)
      expect(brokenAt([...chained.slice(0, k), ...chained.slice(k + 1)])).toBe(chained[k + 1]!.id)
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
