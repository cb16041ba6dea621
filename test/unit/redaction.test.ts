import { describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { makeScrubber } from "../../src/Observability/Redaction.ts"

describe("log scrubbing", () => {
  it("takes API keys out of any text, bare or as a bearer credential, whatever their last character", () => {
    const scrub = makeScrubber([])
    for (let i = 0; i < 200; i++) {
      const key = `cpk_${randomBytes(32).toString("base64url")}`
      for (const text of [`key=${key}`, `Authorization: Bearer ${key}`, `"${key}"`, `${key}-tail`]) {
        expect(scrub(text).includes(key.slice(4)), text).toBe(false)
      }
    }
  })
})
