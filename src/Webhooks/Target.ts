import { Data, Effect } from "effect"
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { addressRefusal } from "./Address.ts"

/** Why a webhook URL is refused, in words for the employer (never with the URL's query, which may hold a token). */
export class TargetRefused extends Data.TaggedError("TargetRefused")<{ readonly reason: string }> {}

/** What the rules allow: http and https outside production, https only in production; private addresses or not. */
export interface TargetRules {
  readonly production: boolean
  readonly allowPrivate: boolean
}

/** Where a delivery goes: the URL, and the checked address its connection is made to. */
export interface Target {
  readonly url: URL
  readonly address: string
  readonly family: 4 | 6
}

const refuse = (reason: string) => Effect.fail(new TargetRefused({ reason }))

/** Names that are the local machine or a local network by definition, whatever a resolver says. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|home\.arpa|localdomain)\.?$/i

/** The URL's form: a scheme the rules allow, a host, no credentials, no fragment, at most 2,048 characters. */
export const parseUrl = (text: string, rules: TargetRules): Effect.Effect<URL, TargetRefused> =>
  Effect.gen(function*() {
    if (text.length > 2048) return yield* refuse("the url is longer than 2,048 characters")
    const url = URL.canParse(text) ? new URL(text) : undefined
    if (url === undefined) return yield* refuse("the url is not an absolute URL")
    if (url.protocol !== "https:" && url.protocol !== "http:") return yield* refuse("the url must be https (or http outside production)")
    if (rules.production && url.protocol !== "https:") return yield* refuse("the url must be https")
    if (url.username !== "" || url.password !== "") return yield* refuse("the url must not carry credentials")
    if (url.hash !== "") return yield* refuse("the url must not have a fragment")
    if (url.hostname === "") return yield* refuse("the url has no host")
    return url
  })

/** The URL's host without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1")

const checked = (address: string, rules: TargetRules): string | undefined => {
  if (rules.allowPrivate) return undefined
  const refusal = addressRefusal(address)
  return refusal === undefined ? undefined : `the url's host is ${address === "" ? "empty" : `${address}`}: ${refusal}`
}

/**
 * Resolves the URL's host and checks every address it has (so that a name with one public and one private address
 * is refused): a private, loopback, link-local or otherwise non-public one refuses the target unless the rules allow
 * private addresses. Answers the first address, the one the connection must be made to.
 */
export const resolveTarget = (url: URL, rules: TargetRules): Effect.Effect<Target, TargetRefused> =>
  Effect.gen(function*() {
    const host = hostOf(url)
    const literal = isIP(host)
    if (literal !== 0) {
      const refusal = checked(host, rules)
      if (refusal !== undefined) return yield* refuse(refusal)
      return { url, address: host, family: literal === 4 ? 4 as const : 6 as const }
    }
    if (!rules.allowPrivate && LOCAL_NAME.test(host)) return yield* refuse(`the url's host ${host} is a local name`)
    const addresses = yield* Effect.tryPromise({
      try: () => lookup(host, { all: true, verbatim: true }),
      catch: () => new TargetRefused({ reason: `the url's host ${host} does not resolve` })
    })
    const first = addresses[0]
    if (first === undefined) return yield* refuse(`the url's host ${host} has no address`)
    for (const { address } of addresses) {
      const refusal = checked(address, rules)
      if (refusal !== undefined) return yield* refuse(`${refusal} (resolved from ${host})`)
    }
    return { url, address: first.address, family: first.family === 6 ? 6 as const : 4 as const }
  })

/** The URL as logs and messages may show it: scheme, host and path, never the query (it may hold a token). */
export const redactedUrl = (url: URL) => `${url.protocol}//${url.host}${url.pathname}`
