import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { BlockList, isIP } from "node:net"
import { canonicalIp, clientNetwork } from "../../src/Http/ClientAddress.ts"

const hextet = fc.integer({ min: 0, max: 0xffff })
const address = fc.array(hextet, { minLength: 8, maxLength: 8 })
const prefix = fc.integer({ min: 1, max: 128 })

/** The eight hextets in full, upper-case (a spelling canonicalIp must undo). */
const spelled = (hextets: ReadonlyArray<number>) =>
  hextets.map((h) => h.toString(16).toUpperCase().padStart(4, "0")).join(":")

/** `hextets` with every bit from `from` (0-based, counted from the left) on replaced by `noise`'s bits. */
const withHostBits = (hextets: ReadonlyArray<number>, from: number, noise: ReadonlyArray<number>) =>
  hextets.map((h, i) => {
    const kept = Math.min(16, Math.max(0, from - 16 * i))
    const mask = (0xffff << (16 - kept)) & 0xffff
    return (h & mask) | (noise[i]! & ~mask & 0xffff)
  })

const ipv6 = (hextets: ReadonlyArray<number>) => {
  const canonical = canonicalIp(spelled(hextets))!
  // An address in ::ffff:0:0/96 is IPv4 and keyed as such; the IPv6 properties are about the rest.
  return isIP(canonical) === 6 ? canonical : undefined
}

describe("the rate limit's client", () => {
  it("is the address's /prefix network, which holds the address and has no host bits", () => {
    fc.assert(
      fc.property(address, prefix, (hextets, bits) => {
        const canonical = ipv6(hextets)
        fc.pre(canonical !== undefined)
        const key = clientNetwork(canonical!, bits)
        const [network = "", length] = key.split("/")
        expect(Number(length)).toBe(bits)
        expect(canonicalIp(network)).toBe(network)
        const block = new BlockList()
        block.addSubnet(network, bits, "ipv6")
        expect(block.check(canonical!, "ipv6")).toBe(true)
        expect(clientNetwork(network, bits)).toBe(key)
      })
    )
  })

  it("is shared by every address of one network, whatever their host bits and spelling", () => {
    fc.assert(
      fc.property(address, address, prefix, (hextets, noise, bits) => {
        const one = ipv6(hextets)
        const other = ipv6(withHostBits(hextets, bits, noise))
        fc.pre(one !== undefined && other !== undefined)
        expect(clientNetwork(other!, bits)).toBe(clientNetwork(one!, bits))
        expect(clientNetwork(canonicalIp(`[${spelled(hextets)}]:443`)!, bits)).toBe(clientNetwork(one!, bits))
      })
    )
  })

  it("differs between addresses that differ inside the prefix", () => {
    fc.assert(
      fc.property(address, prefix, fc.nat(), (hextets, bits, pick) => {
        const flipped = pick % bits
        const other = hextets.map((h, i) => (i === Math.floor(flipped / 16) ? h ^ (0x8000 >> (flipped % 16)) : h))
        const one = ipv6(hextets)
        const two = ipv6(other)
        fc.pre(one !== undefined && two !== undefined)
        expect(clientNetwork(two!, bits)).not.toBe(clientNetwork(one!, bits))
      })
    )
  })

  it("is an IPv4 address itself, IPv4-mapped IPv6 included", () => {
    const octet = fc.integer({ min: 0, max: 255 })
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), prefix, (octets, bits) => {
        const dotted = octets.join(".")
        expect(clientNetwork(canonicalIp(dotted)!, bits)).toBe(dotted)
        expect(clientNetwork(canonicalIp(`::ffff:${dotted}`)!, bits)).toBe(dotted)
        const [a, b, c, d] = octets
        const hex = `::FFFF:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
        expect(clientNetwork(canonicalIp(hex)!, bits)).toBe(dotted)
      })
    )
  })

  it("reads as the usual compressed network", () => {
    expect(clientNetwork("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64)).toBe("2001:db8:1:2::/64")
    expect(clientNetwork("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 48)).toBe("2001:db8:1::/48")
    expect(clientNetwork("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 56)).toBe("2001:db8:1::/56")
    expect(clientNetwork("2001:db8:1:2ff::1", 56)).toBe("2001:db8:1:200::/56")
    expect(clientNetwork("2001:db8::1", 128)).toBe("2001:db8::1/128")
    expect(clientNetwork("ffff::1", 1)).toBe("8000::/1")
    expect(clientNetwork("unknown", 64)).toBe("unknown")
  })
})
