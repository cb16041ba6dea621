import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { decodeCursor, encodeCursor, toPage } from "../../src/Http/Cursor.ts"

const ID = "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
const row = (ms: number, id = ID) => ({ createdAt: DateTime.unsafeMake(ms), id })

describe("keyset cursors", () => {
  it.effect("round-trip the last row's time and id, opaque base64url", () =>
    Effect.gen(function*() {
      const cursor = encodeCursor(row(1_700_000_000_123))
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(yield* decodeCursor(cursor)).toEqual({ createdAt: new Date(1_700_000_000_123), id: ID })
    }))

  it.effect("are checked whole: alphabet, JSON shape, time range, UUID", () =>
    Effect.gen(function*() {
      const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
      const bad = [
        "",
        "not a cursor!",
        "x".repeat(201),
        raw({ t: 1, id: ID }),
        raw([1, ID, 3]),
        raw([-1, ID]),
        raw([1.5, ID]),
        raw([Date.UTC(10000, 0, 1), ID]),
        raw([1, "not-a-uuid"]),
        Buffer.from("[1,").toString("base64url")
      ]
      for (const cursor of bad) {
        const error = yield* Effect.flip(decodeCursor(cursor))
        expect(error, cursor).toMatchObject({ _tag: "InvalidRequest", error: "invalid cursor" })
      }
    }))

  it("a page of limit + 1 rows has the next cursor at its last item; a short page has none", () => {
    const rows = [row(3_000), row(2_000), row(1_000)]
    const page = toPage(rows, 2, (r) => DateTime.toEpochMillis(r.createdAt))
    expect(page.items).toEqual([3_000, 2_000])
    expect(page.nextCursor).toBe(encodeCursor(rows[1]!))
    expect(toPage(rows, 3, (r) => r.id)).toEqual({ items: [ID, ID, ID] })
  })
})
