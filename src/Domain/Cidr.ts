import { Schema } from "effect"

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
const HEXTET = /^[0-9a-f]{1,4}$/i

const isIpv6 = (text: string): boolean => {
  let body = text
  let extra = 0
  const lastColon = body.lastIndexOf(":")
  // An IPv4 tail (::ffff:192.0.2.1) counts as two groups.
  if (lastColon >= 0 && body.slice(lastColon + 1).includes(".")) {
    if (!IPV4.test(body.slice(lastColon + 1))) return false
    body = `${body.slice(0, lastColon + 1)}0`
    extra = 1
  }
  const halves = body.split("::")
  if (halves.length > 2) return false
  const groups = halves.map((half) => (half === "" ? [] : half.split(":")))
  if (groups.some((g) => g.some((h) => !HEXTET.test(h)))) return false
  const count = groups.reduce((n, g) => n + g.length, 0) + extra
  return halves.length === 2 ? count <= 7 : count === 8
}

/**
 * Whether `text` is an IPv4 or IPv6 address, or a CIDR block of one (`203.0.113.0/24`, `2001:db8::/32`). Written
 * without `node:net`, so that the contract (and the typed client that imports it) runs anywhere; the service matches
 * addresses against blocks with Node's BlockList (`Http/ClientAddress.ts`), which agrees with it on what it accepts.
 */
export const isAddressOrBlock = (text: string): boolean => {
  const [address = "", prefix, ...rest] = text.split("/")
  if (rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return false
  const v4 = IPV4.test(address)
  if (!v4 && !isIpv6(address)) return false
  return prefix === undefined || Number(prefix) <= (v4 ? 32 : 128)
}

/** An IPv4 or IPv6 address or CIDR block. */
export const Cidr = Schema.String.pipe(
  Schema.maxLength(64),
  Schema.filter(isAddressOrBlock, { message: () => "an IPv4 or IPv6 address or CIDR block" })
).annotations({ description: "An IPv4 or IPv6 address or CIDR block", examples: ["203.0.113.0/24", "2001:db8::/32"] })
