import { isIP } from "node:net"

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
const parse = (text: string): Uint8Array | undefined => {
  const address = text.split("%")[0]!
  const version = isIP(address)
  if (version === 4) return Uint8Array.from(address.split(".").map(Number))
  if (version !== 6) return undefined
  let groups = address
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1]
  if (tail !== undefined) {
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number]
    groups = `${address.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", rest] = groups.split("::") as [string, string | undefined]
  const left = head === "" ? [] : head.split(":")
  const right = rest === undefined || rest === "" ? [] : rest.split(":")
  const words = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
  const bytes = new Uint8Array(16)
  words.forEach((word, i) => {
    const value = parseInt(word, 16)
    bytes[i * 2] = value >> 8
    bytes[i * 2 + 1] = value & 0xff
  })
  return bytes
}

/** Whether the first `bits` of `bytes` are those of `prefix`. */
const within = (bytes: Uint8Array, prefix: ReadonlyArray<number>, bits: number) => {
  for (let bit = 0; bit < bits; bit++) {
    const mask = 0x80 >> (bit % 8)
    if ((bytes[bit >> 3]! & mask) !== ((prefix[bit >> 3] ?? 0) & mask)) return false
  }
  return true
}

type Range = readonly [prefix: ReadonlyArray<number>, bits: number, what: string]

/** IPv4 blocks that are not the public internet (IANA special-purpose registry, RFC 6890 and successors). */
const IPV4: ReadonlyArray<Range> = [
  [[0], 8, "this network (0.0.0.0/8)"],
  [[10], 8, "private (10.0.0.0/8)"],
  [[100, 64], 10, "shared address space, carrier-grade NAT (100.64.0.0/10)"],
  [[127], 8, "loopback (127.0.0.0/8)"],
  [[169, 254], 16, "link-local (169.254.0.0/16)"],
  [[172, 16], 12, "private (172.16.0.0/12)"],
  [[192, 0, 0], 24, "IETF protocol assignments (192.0.0.0/24)"],
  [[192, 0, 2], 24, "documentation (192.0.2.0/24)"],
  [[192, 88, 99], 24, "6to4 relay anycast (192.88.99.0/24)"],
  [[192, 168], 16, "private (192.168.0.0/16)"],
  [[198, 18], 15, "benchmarking (198.18.0.0/15)"],
  [[198, 51, 100], 24, "documentation (198.51.100.0/24)"],
  [[203, 0, 113], 24, "documentation (203.0.113.0/24)"],
  [[224], 4, "multicast (224.0.0.0/4)"],
  [[240], 4, "reserved or broadcast (240.0.0.0/4)"]
]

/** IPv6 blocks inside global unicast (2000::/3) that are not the public internet. */
const IPV6: ReadonlyArray<Range> = [
  [[0x20, 0x01, 0x0d, 0xb8], 32, "documentation (2001:db8::/32)"],
  [[0x20, 0x01, 0x00], 23, "IETF protocol assignments, Teredo included (2001::/23)"],
  [[0x3f, 0xff, 0x00], 20, "documentation (3fff::/20)"]
]

/** IPv6 blocks outside global unicast, named for the refusal's message. */
const IPV6_NAMED: ReadonlyArray<Range> = [
  [[], 128, "unspecified (::)"],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback (::1)"],
  [[0xfc], 7, "unique local (fc00::/7)"],
  [[0xfe, 0x80], 10, "link-local (fe80::/10)"],
  [[0xfe, 0xc0], 10, "site-local (fec0::/10)"],
  [[0xff], 8, "multicast (ff00::/8)"]
]

const v4Refusal = (bytes: Uint8Array): string | undefined => IPV4.find(([prefix, bits]) => within(bytes, prefix, bits))?.[2]

/** The IPv4 address an IPv6 one stands for: IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) embed one. */
const embeddedV4 = (bytes: Uint8Array): Uint8Array | undefined => {
  if (within(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) return bytes.slice(12)
  if (within(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return bytes.slice(12)
  if (within(bytes, [0x20, 0x02], 16)) return bytes.slice(2, 6)
  return undefined
}

/**
 * Why an endpoint must not be reached at `address` (private, loopback, link-local, carrier-grade NAT, multicast,
 * documentation, reserved...), or undefined for a public unicast address. IPv6 is allowed only in global unicast
 * (2000::/3) outside its special blocks; an IPv6 address that embeds an IPv4 one is judged by that one. Text that is
 * not an IP address is refused too.
 */
export const addressRefusal = (address: string): string | undefined => {
  const bytes = parse(address)
  if (bytes === undefined) return "not an IP address"
  if (bytes.length === 4) return v4Refusal(bytes)
  const v4 = embeddedV4(bytes)
  if (v4 !== undefined) {
    const refusal = v4Refusal(v4)
    return refusal === undefined ? undefined : `${refusal}, embedded in IPv6`
  }
  const named = IPV6_NAMED.find(([prefix, bits]) => within(bytes, prefix, bits))?.[2]
  if (named !== undefined) return named
  if (!within(bytes, [0x20], 3)) return "not global unicast (outside 2000::/3)"
  return IPV6.find(([prefix, bits]) => within(bytes, prefix, bits))?.[2]
}

/** Whether `address` is a public unicast address a webhook may be sent to. */
export const isPublicAddress = (address: string): boolean => addressRefusal(address) === undefined
