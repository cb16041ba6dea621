import { describe, expect, it } from "@effect/vitest"
import { String } from "effect"
import fc from "fast-check"
import { remembered } from "../../src/Sql/PgLive.ts"

describe("column names remembered", () => {
  it("answers exactly what the transform answers, asked once or many times, past the cache's size too", () => {
    let calls = 0
    const counted = (name: string) => {
      calls += 1
      return String.snakeToCamel(name)
    }
    const camel = remembered(counted, 8)
    fc.assert(fc.property(fc.array(fc.stringMatching(/^[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,8}){0,3}$/), { maxLength: 20 }), (names) => {
      for (const name of [...names, ...names]) expect(camel(name)).toBe(String.snakeToCamel(name))
    }), { numRuns: 200, seed: 18 })
    calls = 0
    const fresh = remembered(counted, 2)
    for (const name of ["created_at", "org_id", "created_at", "last_paid_at", "last_paid_at"]) fresh(name)
    // created_at and org_id are remembered; last_paid_at, beyond the size, is transformed each time.
    expect(calls).toBe(4)
  })
})
