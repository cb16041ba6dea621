import { expect, layer } from "@effect/vitest"
import { Keypair, Networks } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { call, type Reply, signChallenge } from "./support/Client.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

/**
 * One sign-in attempt: a SEP-10 challenge (not counted), signed and posted to the token step (counted), optionally
 * through a proxy that says who the client is.
 */
const attempt = (app: TestAppShape, forwardedFor?: string) =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    const challenge = yield* call(app, "GET", `/auth/sep10/challenge?account=${wallet.publicKey()}`)
    expect(challenge.status).toBe(200)
    return yield* call(app, "POST", "/auth/sep10/verify", {
      json: { transaction: signChallenge(challenge.body.transaction, Networks.TESTNET, wallet) },
      headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }
    })
  })

/** The RateLimit fields of draft-ietf-httpapi-ratelimit-headers (08 to 11), parsed. */
const rateLimitOf = (reply: Reply) => {
  const policy = /^"sign-in";q=(\d+);w=(\d+)$/.exec(reply.headers.get("ratelimit-policy") ?? "")
  const state = /^"sign-in";r=(\d+);t=(\d+)$/.exec(reply.headers.get("ratelimit") ?? "")
  return {
    quota: Number(policy?.[1]),
    window: Number(policy?.[2]),
    remaining: Number(state?.[1]),
    reset: Number(state?.[2])
  }
}

/** `count` random hextets, colon-separated: the host part of an address that rotates. */
const randomHextets = (count: number) =>
  Array.from({ length: count }, () => Math.floor(Math.random() * 0x10000).toString(16)).join(":")

const statuses = (replies: ReadonlyArray<Reply>) => replies.map((reply) => reply.status)

const expectLimited = (reply: Reply, windowSeconds: number) => {
  expect(reply.status).toBe(429)
  expect(reply.body.error).toMatch(/too many sign-in attempts/)
  const retryAfter = Number(reply.headers.get("retry-after"))
  expect(Number.isInteger(retryAfter)).toBe(true)
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds)
  expect(rateLimitOf(reply)).toMatchObject({ remaining: 0, reset: retryAfter })
}

layer(TestAppLive({ AUTH_RATE_LIMIT: "4", AUTH_RATE_WINDOW: "1 minute" }))("one limit for every instance", (it) => {
  it.effect("attempts on two instances count against one limit; 429 carries Retry-After", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const second = yield* app.startInstance
      const other = { ...app, url: second.url }
      const replies: Array<Reply> = []
      for (const target of [app, other, app, other]) replies.push(yield* attempt(target))
      expect(statuses(replies)).toEqual([200, 200, 200, 200])
      expectLimited(yield* attempt(other), 60)
      expectLimited(yield* attempt(app), 60)
      // Every sign-in route shares the limit; other routes do not count.
      expect((yield* call(other, "POST", "/auth/privy", { json: { token: "x" } })).status).toBe(429)
      expect((yield* call(app, "GET", "/health/live")).status).toBe(200)
      expect((yield* call(app, "GET", "/health/live")).headers.get("retry-after")).toBeNull()
      yield* second.stop
    }))
})

layer(TestAppLive({ AUTH_RATE_LIMIT: "3", AUTH_RATE_WINDOW: "1 minute" }))("what is counted", (it) => {
  it.effect("stellar.toml and SEP-10 challenges do not count; the token steps do, and say what is left", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const account = Keypair.random().publicKey()
      // A wallet page reloading stellar.toml, or a conformance suite run twice, asks for far more than the limit.
      // Challenges have a limit of their own (CHALLENGE_RATE_LIMIT, test/sep10-stateless.test.ts), far above this one.
      for (let i = 0; i < 12; i++) {
        const replies = [
          yield* call(app, "GET", "/.well-known/stellar.toml"),
          yield* call(app, "GET", `/auth/sep10/challenge?account=${account}`),
          yield* call(app, "GET", `/auth?account=${account}`)
        ]
        expect(statuses(replies)).toEqual([200, 200, 200])
        expect(replies[0]!.headers.get("ratelimit-policy")).toBeNull()
        for (const reply of replies.slice(1)) expect(reply.headers.get("ratelimit-policy")).toMatch(/^"challenge";/)
      }
      const first = yield* attempt(app)
      expect(first.status).toBe(200)
      expect(rateLimitOf(first)).toEqual({ quota: 3, window: 60, remaining: 2, reset: 60 })
      expect(first.headers.get("retry-after")).toBeNull()
      // An answer other than 200 is counted and says so too.
      const refused = yield* call(app, "POST", "/auth", { json: { transaction: "not a challenge" } })
      expect(refused.status).toBe(400)
      expect(rateLimitOf(refused)).toMatchObject({ quota: 3, window: 60, remaining: 1 })
      expect((yield* call(app, "POST", "/auth/privy", { json: { token: "x" } })).status).toBe(501)
      const limited = yield* call(app, "POST", "/auth/sep10/verify", { json: { transaction: "x" } })
      expectLimited(limited, 60)
      expect(rateLimitOf(limited)).toMatchObject({ quota: 3, window: 60 })
      expect(limited.headers.get("access-control-allow-origin")).toBe("*")
      expectLimited(yield* call(app, "POST", "/auth/privy", { json: { token: "x" } }), 60)
      // Past the limit, the public steps still answer.
      expect((yield* call(app, "GET", "/.well-known/stellar.toml")).status).toBe(200)
      expect((yield* call(app, "GET", `/auth?account=${account}`)).status).toBe(200)
    }))
})

layer(TestAppLive({ AUTH_RATE_LIMIT: "2", AUTH_RATE_WINDOW: "1 minute", TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8" }))(
  "behind trusted proxies",
  (it) => {
    it.effect("the client is the rightmost address no trusted proxy vouches for", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        expect(statuses([yield* attempt(app, "203.0.113.5"), yield* attempt(app, "203.0.113.5")])).toEqual([200, 200])
        expectLimited(yield* attempt(app, "203.0.113.5"), 60)
        // Whatever the client writes to the left is ignored; trusted hops on the right are skipped.
        expectLimited(yield* attempt(app, "198.51.100.77, 203.0.113.5"), 60)
        expectLimited(yield* attempt(app, "203.0.113.5, 10.1.2.3"), 60)
        expectLimited(yield* attempt(app, "::ffff:203.0.113.5"), 60)
        // Another client has its own count, and so does the proxy itself (no header).
        expect(statuses([yield* attempt(app, "203.0.113.6, 10.9.9.9"), yield* attempt(app, "203.0.113.6")])).toEqual([200, 200])
        expectLimited(yield* attempt(app, "203.0.113.6"), 60)
        expect((yield* attempt(app)).status).toBe(200)
      }))

    it.effect("an IPv6 client is its /64: addresses rotating inside it share one limit, whatever their spelling", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        expect(statuses([yield* attempt(app, "2001:db8:1:2::1"), yield* attempt(app, "[2001:DB8:1:2:0:0:0:2]:4711")]))
          .toEqual([200, 200])
        const rotating: Array<Reply> = []
        for (let i = 0; i < 20; i++) rotating.push(yield* attempt(app, `2001:db8:1:2:${randomHextets(4)}`))
        expect(statuses(rotating)).toEqual(Array(20).fill(429))
        expectLimited(yield* attempt(app, "2001:0db8:0001:0002:ffff:ffff:ffff:ffff"), 60)
        // The next /64 is another client.
        expect(statuses([yield* attempt(app, "2001:db8:1:3::1"), yield* attempt(app, "2001:db8:1:3:abcd::9")])).toEqual([200, 200])
        expectLimited(yield* attempt(app, "2001:db8:1:3::2"), 60)
      }))
  }
)

layer(TestAppLive({ AUTH_RATE_LIMIT: "2", AUTH_RATE_WINDOW: "1 minute", TRUSTED_PROXIES: "127.0.0.1", AUTH_RATE_IPV6_PREFIX: "56" }))(
  "with AUTH_RATE_IPV6_PREFIX",
  (it) => {
    it.effect("an IPv6 client is its network of that many bits", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        expect(statuses([yield* attempt(app, "2001:db8:1:2::1"), yield* attempt(app, "2001:db8:1:ff:1::")])).toEqual([200, 200])
        expectLimited(yield* attempt(app, "2001:db8:1:80::7"), 60)
        expect((yield* attempt(app, "2001:db8:1:100::1")).status).toBe(200)
      }))
  }
)

layer(TestAppLive({ AUTH_RATE_LIMIT: "2", AUTH_RATE_WINDOW: "1 minute", TRUSTED_PROXIES: "10.0.0.0/8" }))(
  "from an untrusted peer",
  (it) => {
    it.effect("a forged X-Forwarded-For buys no fresh attempts", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const replies = [
          yield* attempt(app, "203.0.113.10"),
          yield* attempt(app, "203.0.113.11"),
          yield* attempt(app, "203.0.113.12")
        ]
        expect(statuses(replies)).toEqual([200, 200, 429])
        expectLimited(yield* attempt(app), 60)
      }))
  }
)

layer(TestAppLive({ AUTH_RATE_LIMIT: "2", AUTH_RATE_WINDOW: "2 seconds" }))("the window", (it) => {
  it.effect("resets once it has passed", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      expect(statuses([yield* attempt(app), yield* attempt(app)])).toEqual([200, 200])
      const limited = yield* attempt(app)
      expectLimited(limited, 2)
      const wait = Number(limited.headers.get("retry-after")) * 1000
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, wait)))
      expect(statuses([yield* attempt(app), yield* attempt(app)])).toEqual([200, 200])
      expectLimited(yield* attempt(app), 2)
    }))
})
