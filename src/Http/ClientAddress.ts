import { BlockList, isIP } from "node:net"

/**
 * One text form per address, so that one client is one key: IPv4 dotted, IPv6 compressed lower-case, and an
 * IPv4-mapped IPv6 address as the IPv4 address it carries. Brackets, ports and zone ids are dropped. `undefined` when
 * the text is no IP address.
 */
export const canonicalIp = (raw: string): string | undefined => {
  let text = raw.trim()
  if (text.startsWith("[")) {
    const end = text.indexOf("]")
    if (end < 0) return undefined
    text = text.slice(1, end)
  } else if (/^[0-9.]+:\d+$/.test(text)) {
    text = text.slice(0, text.lastIndexOf(":"))
  }
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  const family = isIP(text)
  if (family === 4) return text
  if (family !== 6) return undefined
  const host = new URL(`http://[${text}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
  if (mapped === null) return host
  const high = parseInt(mapped[1]!, 16)
  const low = parseInt(mapped[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

const familyOf = (address: string) => (isIP(address) === 4 ? "ipv4" : "ipv6")

interface ProxyEntry {
  readonly address: string
  readonly prefix: number | undefined
}

const parseEntry = (entry: string): ProxyEntry | undefined => {
  const [rawAddress = "", rawPrefix, ...rest] = entry.trim().split("/")
  if (rest.length > 0 || (rawPrefix !== undefined && !/^\d{1,3}$/.test(rawPrefix))) return undefined
  const address = canonicalIp(rawAddress)
  if (address === undefined) return undefined
  if (rawPrefix === undefined) return { address, prefix: undefined }
  let prefix = Number(rawPrefix)
  // An IPv4-mapped subnet (::ffff:10.0.0.0/104) is the IPv4 subnet it maps.
  if (isIP(address) === 4 && isIP(rawAddress.trim()) === 6) prefix -= 96
  const max = isIP(address) === 4 ? 32 : 128
  return prefix >= 0 && prefix <= max ? { address, prefix } : undefined
}

/** An address (`10.0.0.7`, `::1`) or a CIDR block (`10.0.0.0/8`, `fd00::/8`), as TRUSTED_PROXIES lists them. */
export const isProxyEntry = (entry: string): boolean => parseEntry(entry) !== undefined

/** The proxies whose `X-Forwarded-For` is believed. */
export class TrustedProxies {
  readonly #list = new BlockList()
  readonly size: number

  constructor(entries: ReadonlyArray<string>) {
    let size = 0
    for (const entry of entries) {
      const parsed = parseEntry(entry)
      if (parsed === undefined) throw new Error(`not an IP address or CIDR block: ${entry}`)
      if (parsed.prefix === undefined) this.#list.addAddress(parsed.address, familyOf(parsed.address))
      else this.#list.addSubnet(parsed.address, parsed.prefix, familyOf(parsed.address))
      size += 1
    }
    this.size = size
  }

  /** `address` is canonical (see `canonicalIp`). */
  has(address: string): boolean {
    return this.size > 0 && this.#list.check(address, familyOf(address))
  }
}

const hextets = (ipv6: string): Array<number> => {
  const [head = "", tail] = ipv6.split("::")
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

/**
 * Who the sign-in rate limit counts as one client: an IPv4 address by itself, an IPv6 address by its network of
 * `ipv6Prefix` bits (`2001:db8:1:2::/64`), since one subscriber is usually given a whole /64 and can rotate through
 * it. `address` is canonical (see `canonicalIp`), so an IPv4-mapped IPv6 address already reads as IPv4.
 */
export const clientNetwork = (address: string, ipv6Prefix: number): string => {
  if (isIP(address) !== 6) return address
  const masked = hextets(address).map((hextet, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - 16 * i))
    return (hextet & (0xffff << (16 - bits))) & 0xffff
  })
  const network = new URL(`http://[${masked.map((h) => h.toString(16)).join(":")}]/`).hostname.slice(1, -1)
  return `${network}/${ipv6Prefix}`
}

/**
 * The address a request comes from. The socket's peer, unless the peer is a trusted proxy: then `X-Forwarded-For` is
 * walked from the right (each proxy appends the address it saw), skipping trusted proxies, and the first address no
 * proxy of ours vouches for is the client. Anything left of it may be forged by the client and is ignored. A hop that
 * is not an IP address ends the walk at the last address a trusted proxy gave.
 */
export const clientAddress = (
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies
): string => {
  const peerIp = peer === undefined ? undefined : canonicalIp(peer)
  if (peerIp === undefined) return "unknown"
  if (forwardedFor === undefined || !trusted.has(peerIp)) return peerIp
  const hops = forwardedFor.split(",").map((hop) => hop.trim()).filter((hop) => hop.length > 0)
  let client = peerIp
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalIp(hops[i]!)
    if (hop === undefined) return client
    client = hop
    if (!trusted.has(hop)) return hop
  }
  return client
}
