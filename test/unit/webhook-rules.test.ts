import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Option } from "effect"
import fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { addressRefusal, isPublicAddress } from "../../src/Webhooks/Address.ts"
import { retryDelay, retrySpan } from "../../src/Webhooks/RetrySchedule.ts"
import { newSecret, signedHeaders } from "../../src/Webhooks/Signature.ts"
import { parseUrl, resolveTarget } from "../../src/Webhooks/Target.ts"

const RUNS = Number(process.env.FUZZ_RUNS ?? 1) * 500

const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`
const octet = fc.integer({ min: 0, max: 255 })
const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
const mapped = (address: string) => `::ffff:${address}`

/** IPv4 blocks that must be refused, as [first octets, prefix bits]. */
const REFUSED_V4: ReadonlyArray<readonly [ReadonlyArray<number>, number]> = [
  [[0], 8], [[10], 8], [[100, 64], 10], [[127], 8], [[169, 254], 16], [[172, 16], 12], [[192, 0, 0], 24], [[192, 0, 2], 24], [[192, 88, 99], 24],
  [[192, 168], 16], [[198, 18], 15], [[198, 51, 100], 24], [[203, 0, 113], 24], [[224], 4], [[240], 4]
]

/** A random address inside `prefix/bits`. */
const inBlock = ([prefix, bits]: readonly [ReadonlyArray<number>, number]) =>
  fc.tuple(octet, octet, octet, octet).map((random) => {
    const value = (random[0]! << 24 >>> 0) + (random[1]! << 16) + (random[2]! << 8) + random[3]!
    const base = ((prefix[0] ?? 0) << 24 >>> 0) + ((prefix[1] ?? 0) << 16) + ((prefix[2] ?? 0) << 8)
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
    const n = ((base & mask) | (value & ~mask)) >>> 0
    return v4(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255)
  })

const refusedV4 = fc.oneof(...REFUSED_V4.map(inBlock))

describe("webhook target rules", () => {
  it("refuses every address of the private, loopback, link-local, CGNAT, multicast and reserved IPv4 blocks, and their IPv6 forms", () => {
    fc.assert(
      fc.property(refusedV4, (address) => {
        expect(isPublicAddress(address)).toBe(false)
        expect(isPublicAddress(mapped(address))).toBe(false)
        const [a, b, c, d] = address.split(".").map(Number) as [number, number, number, number]
        expect(isPublicAddress(`::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`)).toBe(false)
        expect(isPublicAddress(`64:ff9b::${address}`)).toBe(false)
        expect(isPublicAddress(`2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`)).toBe(false)
      }),
      { numRuns: RUNS }
    )
  })

  it("refuses unique-local, link-local, site-local, multicast and every IPv6 outside global unicast", () => {
    const block = (first: number, mask: number) =>
      fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.array(hex16, { minLength: 7, maxLength: 7 }))
        .map(([w, rest]) => [((first & mask) | (w & ~mask & 0xffff)).toString(16), ...rest].join(":"))
    const outside = fc.tuple(fc.integer({ min: 0, max: 0xffff }).filter((w) => w < 0x2000 || w >= 0x4000), fc.array(hex16, { minLength: 7, maxLength: 7 }))
      .map(([w, rest]) => [w.toString(16), ...rest].join(":"))
    fc.assert(
      fc.property(fc.oneof(block(0xfc00, 0xfe00), block(0xfe80, 0xffc0), block(0xfec0, 0xffc0), block(0xff00, 0xff00), outside), (address) => {
        expect(addressRefusal(address)).toBeDefined()
      }),
      { numRuns: RUNS }
    )
    for (const address of ["::", "::1", "0:0:0:0:0:0:0:1", "fe80::1%eth0", "::ffff:0.0.0.0", "::127.0.0.1", "2001:db8::1", "2001::1", "3fff::1", "100::1", "64:ff9b:1::1"]) {
      expect([address, isPublicAddress(address)]).toEqual([address, false])
    }
  })

  it("allows public unicast addresses, IPv4 and IPv6, and refuses what is not an address", () => {
    const publicV4 = fc.tuple(octet, octet, octet, octet).map(([a, b, c, d]) => v4(a, b, c, d))
      .filter((address) => !REFUSED_V4.some((block) => inRange(address, block)))
    fc.assert(fc.property(publicV4, (address) => {
      expect(addressRefusal(address)).toBeUndefined()
      expect(addressRefusal(mapped(address))).toBeUndefined()
    }), { numRuns: RUNS })
    for (const address of ["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.1", "172.32.0.1", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8"]) {
      expect([address, addressRefusal(address)]).toEqual([address, undefined])
    }
    for (const text of ["", "localhost", "1.2.3", "256.1.1.1", "::g"]) expect(isPublicAddress(text)).toBe(false)
  })

  it.effect("https only in production; no credentials or fragment; loopback literals and local names refused unless allowed", () =>
    Effect.gen(function*() {
      const rules = { production: true, allowPrivate: false }
      expect(Either.isLeft(yield* Effect.either(parseUrl("http://hooks.example.com/x", rules)))).toBe(true)
      expect(Either.isRight(yield* Effect.either(parseUrl("https://hooks.example.com/x", rules)))).toBe(true)
      expect(Either.isRight(yield* Effect.either(parseUrl("http://hooks.example.com/x", { ...rules, production: false })))).toBe(true)
      for (const url of ["https://u:p@hooks.example.com/", "https://hooks.example.com/#x", "ftp://hooks.example.com/", `https://h.example.com/${"a".repeat(2050)}`]) {
        expect([url.slice(0, 40), Either.isLeft(yield* Effect.either(parseUrl(url, rules)))]).toEqual([url.slice(0, 40), true])
      }
      for (const url of ["https://127.0.0.2/", "https://[::1]/", "https://[::ffff:7f00:1]/", "https://0x7f.1/", "https://localhost/", "https://db.internal/"]) {
        const refused = yield* Effect.either(resolveTarget(new URL(url), rules))
        expect([url, Either.isLeft(refused)]).toEqual([url, true])
      }
      const allowed = yield* resolveTarget(new URL("http://[::1]:8080/x"), { production: false, allowPrivate: true })
      expect(allowed).toMatchObject({ address: "::1", family: 6 })
    }))

  it("signs as the Standard Webhooks specification says: standardwebhooks verifies it", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.json(), (id, data) => {
        const secret = newSecret()
        expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBe(32)
        const body = JSON.stringify({ type: "payout.settled", timestamp: new Date().toISOString(), data })
        const headers = signedHeaders([secret], id, body, Date.now())
        expect(new Webhook(secret).sign(id, new Date(Number(headers["webhook-timestamp"]) * 1000), body)).toBe(headers["webhook-signature"])
        expect(() => new Webhook(secret).verify(body, headers)).not.toThrow()
        expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow()
      }),
      { numRuns: 100 }
    )
  })

  it("during a rotation signs with both secrets, the new one first: standardwebhooks verifies with either, not a third", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.json(), (id, data) => {
        const [current, previous] = [newSecret(), newSecret()]
        const body = JSON.stringify({ type: "batch.completed", timestamp: new Date().toISOString(), data })
        const headers = signedHeaders([current, previous], id, body, Date.now())
        const at = new Date(Number(headers["webhook-timestamp"]) * 1000)
        expect(headers["webhook-signature"]).toBe(`${new Webhook(current).sign(id, at, body)} ${new Webhook(previous).sign(id, at, body)}`)
        for (const secret of [current, previous]) expect(() => new Webhook(secret).verify(body, headers)).not.toThrow()
        expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow()
      }),
      { numRuns: 100 }
    )
  })

  it("retries with exponential backoff from WEBHOOK_RETRY_BASE over more than a day at the defaults, then stops", () => {
    const base = Duration.seconds(5)
    expect([1, 2, 3, 4].map((n) => Duration.toMillis(Option.getOrThrow(retryDelay(n, base, 17))))).toEqual([5_000, 10_000, 20_000, 40_000])
    expect(Duration.toMillis(Option.getOrThrow(retryDelay(16, base, 17)))).toBe(5_000 * 4096)
    expect(Option.isNone(retryDelay(17, base, 17))).toBe(true)
    expect(Duration.toHours(retrySpan(base, 17))).toBeGreaterThan(24)
    expect(Duration.toMillis(retrySpan(Duration.millis(150), 4))).toBe(150 + 300 + 600)
  })
})

const inRange = (address: string, [prefix, bits]: readonly [ReadonlyArray<number>, number]) => {
  const n = address.split(".").map(Number).reduce((acc, o) => (acc * 256) + o, 0)
  const base = [0, 1, 2, 3].map((i) => prefix[i] ?? 0).reduce((acc, o) => (acc * 256) + o, 0)
  const size = 2 ** (32 - bits)
  return n >= base && n < base + size
}
