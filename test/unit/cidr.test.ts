import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isAddressOrBlock } from "../../src/Domain/Cidr.ts"
import { isProxyEntry, TrustedProxies } from "../../src/Http/ClientAddress.ts"

const runs = Number(process.env.FUZZ_RUNS ?? 1) * 300

const block = fc.oneof(
  fc.tuple(fc.ipV4(), fc.option(fc.integer({ min: 0, max: 32 }), { nil: undefined })),
  fc.tuple(fc.ipV6(), fc.option(fc.integer({ min: 0, max: 128 }), { nil: undefined }))
).map(([address, prefix]) => (prefix === undefined ? address : `${address}/${prefix}`))

describe("API key networks (the contract's check, without node:net)", () => {
  it("accepts every generated IPv4/IPv6 address and block, as Node's BlockList does", () =>
    fc.assert(fc.property(block, (text) => {
      expect(isAddressOrBlock(text)).toBe(true)
      expect(isProxyEntry(text)).toBe(true)
    }), { numRuns: runs }))

  it("accepts nothing the service's matcher would refuse", () =>
    fc.assert(fc.property(fc.oneof(fc.string(), block.map((b) => `${b}x`), fc.stringMatching(/^[0-9a-f:./]{1,40}$/)), (text) => {
      if (isAddressOrBlock(text)) {
        expect(isProxyEntry(text)).toBe(true)
        expect(() => new TrustedProxies([text])).not.toThrow()
      }
    }), { numRuns: runs * 3 }))

  it("refuses out-of-range prefixes and malformed addresses", () => {
    for (const bad of ["10.0.0.0/33", "::/129", "256.1.1.1", "1.2.3", "1::2::3", "10.0.0.0/8/1", "", "example.com", "::ffff:1.2.3.400"]) {
      expect([bad, isAddressOrBlock(bad)]).toEqual([bad, false])
    }
    for (const good of ["127.0.0.0/8", "::1/128", "2001:db8::/32", "::ffff:192.0.2.1", "0.0.0.0/0", "::/0"]) {
      expect([good, isAddressOrBlock(good)]).toEqual([good, true])
    }
  })
})
