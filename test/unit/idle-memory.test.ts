import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { IDLE_UTILIZATION, releaseMemory, shouldRelease, WORTH_RELEASING_MS } from "../../src/Observability/IdleMemory.ts"

describe("idle memory", () => {
  it("releases only in an idle window after enough work", () => {
    expect(shouldRelease({ utilization: 0 }, WORTH_RELEASING_MS)).toBe(true)
    expect(shouldRelease({ utilization: IDLE_UTILIZATION / 2 }, 10 * WORTH_RELEASING_MS)).toBe(true)
    // Busy: the burst is still going on.
    expect(shouldRelease({ utilization: IDLE_UTILIZATION }, 10 * WORTH_RELEASING_MS)).toBe(false)
    // Idle, but nothing worth a collection happened since the last one.
    expect(shouldRelease({ utilization: 0 }, WORTH_RELEASING_MS - 1)).toBe(false)
  })

  it.live("the release collects what is no longer reachable", () =>
    Effect.gen(function*() {
      // A large object nothing refers to any more; a WeakRef tells whether the collection reclaimed it.
      const garbage = new WeakRef(Array.from({ length: 1_000_000 }, (_, i) => ({ i })))
      expect(garbage.deref()).toBeDefined()
      // A WeakRef keeps its target alive until the current job ends.
      yield* Effect.sleep("1 millis")
      yield* releaseMemory
      expect(garbage.deref()).toBeUndefined()
    }))
})
