import { expect, layer } from "@effect/vitest"
import { Account, BASE_FEE, Keypair, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { call, type Reply, signChallenge } from "./support/Client.ts"
import { psql } from "./support/Psql.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

const challenge = (app: Pick<TestAppShape, "url">, account: string, headers: Record<string, string> = {}) =>
  call(app, "GET", `/auth/sep10/challenge?account=${account}`, { headers })

const verify = (app: Pick<TestAppShape, "url">, transaction: string) => call(app, "POST", "/auth/sep10/verify", { json: { transaction } })

/** A challenge for a fresh wallet from `app`, signed by the wallet. */
const signedChallenge = (app: Pick<TestAppShape, "url">) =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    const reply = yield* challenge(app, wallet.publicKey())
    expect(reply.status).toBe(200)
    return signChallenge(reply.body.transaction, Networks.TESTNET, wallet)
  })

/** Every table's rows, and how many of them a transaction after `since` (a `txid_current()`) wrote. */
const tableWrites = (app: TestAppShape, since: bigint) =>
  Effect.gen(function*() {
    const tables = yield* psql<{ name: string }>(app, "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
    const counts: Record<string, { rows: number; written: number }> = {}
    for (const { name } of tables) {
      const [row] = yield* psql<{ rows: number; written: number }>(
        app,
        `SELECT count(*)::int AS rows, (count(*) FILTER (WHERE xmin::text::bigint >= $1))::int AS written FROM ${name}`,
        [(since % 4_294_967_296n).toString()]
      )
      counts[name] = row!
    }
    return counts
  }).pipe(Effect.orDie)

const txid = (app: TestAppShape) =>
  Effect.map(psql<{ id: string }>(app, "SELECT txid_current()::text AS id"), (rows) => BigInt(rows[0]!.id)).pipe(Effect.orDie)

const challengeHits = (app: TestAppShape) =>
  Effect.map(psql<{ key: string; hits: number }>(app, "SELECT key, hits FROM rate_limits WHERE key LIKE 'challenge:%' ORDER BY key"), (rows) => rows)
    .pipe(Effect.orDie)

// Quiet background work, so that any row written during the run is the challenges' doing.
const QUIET = { CHALLENGE_RATE_LIMIT: "100000", ARCHIVE_INGEST: "false", RECONCILE_INTERVAL: "1 hour", HOUSEKEEPING_INTERVAL: "1 hour" }

layer(TestAppLive(QUIET))("stateless SEP-10 challenges", (it) => {
  it.effect("1,000 challenges write nothing but the client's one rate-limit counter", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const account = Keypair.random().publicKey()
      expect((yield* challenge(app, account)).status).toBe(200)
      const since = yield* txid(app)
      const before = yield* tableWrites(app, since)
      const replies = yield* Effect.forEach(Array.from({ length: 1_000 }), () => challenge(app, account), { concurrency: 16 })
      expect(replies.every((r) => r.status === 200 && typeof r.body.transaction === "string")).toBe(true)
      expect(new Set(replies.map((r) => r.body.transaction)).size).toBe(1_000)
      const after = yield* tableWrites(app, since)

      expect(Object.keys(after)).toEqual(Object.keys(before))
      expect(Object.keys(after)).not.toContain("sep10_challenges")
      for (const [table, { rows, written }] of Object.entries(after)) {
        expect(rows, table).toBe(before[table]!.rows)
        expect(written, table).toBe(table === "rate_limits" ? 1 : 0)
      }
      expect(yield* challengeHits(app)).toEqual([{ key: "challenge:127.0.0.1", hits: 1_001 }])
    }), 120_000)

  it.effect("a challenge from one instance verifies once, on any instance: a replay is 400 on the other", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const second = yield* app.startInstance
      const other = { url: second.url }

      const fromFirst = yield* signedChallenge(app)
      expect((yield* verify(other, fromFirst)).status).toBe(200)
      const replayed = yield* verify(app, fromFirst)
      expect(replayed.status).toBe(400)
      expect(replayed.body.error).toBe("challenge already used")
      expect((yield* verify(other, fromFirst)).status).toBe(400)

      // Raced on both instances at once, one verification wins.
      const raced = yield* signedChallenge(other)
      const results = yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => verify(i % 2 === 0 ? app : other, raced)),
        { concurrency: "unbounded" }
      )
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400])
      const [used] = yield* psql<{ n: number }>(app, "SELECT count(*)::int AS n FROM sep10_used_nonces")
      expect(used!.n).toBe(2)
      yield* second.stop
    }).pipe(Effect.orDie), 60_000)

  it.effect("a used nonce is kept until its challenge could no longer verify anywhere, then pruned", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const signed = yield* signedChallenge(app)
      const verified = yield* verify(app, signed)
      expect(verified.status).toBe(200)
      const [kept] = yield* psql<{ seconds: number }>(
        app,
        "SELECT extract(epoch FROM expires_at - now())::int AS seconds FROM sep10_used_nonces ORDER BY expires_at DESC LIMIT 1"
      ).pipe(Effect.orDie)
      // The challenge's 5 minutes, and 5 more for an instance whose clock is behind.
      expect(kept!.seconds).toBeGreaterThan(590)
      expect(kept!.seconds).toBeLessThanOrEqual(600)
    }))

  it.effect("a challenge issued before the upgrade to stateless challenges is refused: its use may have left no trace", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const [migrated] = yield* psql<{ at: number }>(app, "SELECT extract(epoch FROM created_at)::int AS at FROM effect_sql_migrations WHERE migration_id = 21")
        .pipe(Effect.orDie)
      const wallet = Keypair.random()
      // As the previous version issued it, with the same key, a minute before the migration ran.
      const issued = (minTime: number) => {
        const tx = new TransactionBuilder(new Account(app.sep10Key.publicKey(), "-1"), {
          fee: BASE_FEE,
          networkPassphrase: Networks.TESTNET,
          timebounds: { minTime, maxTime: Math.floor(Date.now() / 1000) + 240 }
        })
          .addOperation(Operation.manageData({ name: "payroll.test auth", value: randomBytes(48).toString("base64"), source: wallet.publicKey() }))
          .addOperation(Operation.manageData({ name: "web_auth_domain", value: "payroll.test", source: app.sep10Key.publicKey() }))
          .build()
        tx.sign(app.sep10Key, wallet)
        return tx.toXDR()
      }
      const before = yield* verify(app, issued(migrated!.at - 60))
      expect(before.status).toBe(400)
      expect(before.body.error).toBe("challenge issued before the service's upgrade: ask for a new one")
      expect((yield* verify(app, issued(Math.floor(Date.now() / 1000)))).status).toBe(200)
    }))

  it.effect("a signed challenge changed anywhere never verifies, and never answers 5xx", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const original = (yield* challenge(app, wallet.publicKey())).body.transaction as string
      const signed = Buffer.from(signChallenge(original, Networks.TESTNET, wallet), "base64")
      const edits = fc.array(fc.tuple(fc.nat({ max: signed.length - 1 }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 })
      for (const changes of fc.sample(edits, { numRuns: 120, seed: 23 })) {
        const bytes = Buffer.from(signed)
        for (const [at, flip] of changes) bytes[at] = bytes[at]! ^ flip
        if (bytes.equals(signed)) continue
        const reply: Reply = yield* verify(app, bytes.toString("base64"))
        expect(reply.status, JSON.stringify(changes)).toBe(400)
        expect(typeof reply.body.error).toBe("string")
      }
      expect((yield* verify(app, signed.toString("base64"))).status).toBe(200)
    }), 120_000)
})

/** The RateLimit fields of the challenge policy (draft-ietf-httpapi-ratelimit-headers 08 to 11), parsed. */
const challengeLimitOf = (reply: Reply) => {
  const policy = /^"challenge";q=(\d+);w=(\d+)$/.exec(reply.headers.get("ratelimit-policy") ?? "")
  const state = /^"challenge";r=(\d+);t=(\d+)$/.exec(reply.headers.get("ratelimit") ?? "")
  return { quota: Number(policy?.[1]), window: Number(policy?.[2]), remaining: Number(state?.[1]), reset: Number(state?.[2]) }
}

const expectLimited = (reply: Reply) => {
  expect(reply.status).toBe(429)
  expect(reply.body.error).toMatch(/^too many SEP-10 challenges; try again in \d+ s$/)
  const retryAfter = Number(reply.headers.get("retry-after"))
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(60)
  expect(challengeLimitOf(reply)).toEqual({ quota: 3, window: 60, remaining: 0, reset: retryAfter })
  expect(reply.headers.get("access-control-allow-origin")).toBe("*")
}

layer(TestAppLive({ CHALLENGE_RATE_LIMIT: "3", CHALLENGE_RATE_WINDOW: "1 minute", AUTH_RATE_LIMIT: "3", TRUSTED_PROXIES: "127.0.0.1" }))(
  "the challenge limit",
  (it) => {
    it.effect("per client across instances: the fourth is 429 with Retry-After and the RateLimit fields", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const second = yield* app.startInstance
        const other = { url: second.url }
        const account = Keypair.random().publicKey()
        const client = { "x-forwarded-for": "203.0.113.7" }

        const first = yield* challenge(app, account, client)
        expect(first.status).toBe(200)
        expect(challengeLimitOf(first)).toEqual({ quota: 3, window: 60, remaining: 2, reset: 60 })
        expect(first.headers.get("retry-after")).toBeNull()
        // GET /auth (the WEB_AUTH_ENDPOINT) shares the count, on either instance.
        expect((yield* call(other, "GET", `/auth?account=${account}`, { headers: client })).status).toBe(200)
        expect(challengeLimitOf(yield* challenge(app, account, client)).remaining).toBe(0)
        expectLimited(yield* challenge(other, account, client))
        expectLimited(yield* call(app, "GET", `/auth?account=${account}`, { headers: client }))

        // Past the limit, a flood is answered from each instance's memory: the shared counter stops growing.
        const counted = yield* challengeHits(app)
        for (let i = 0; i < 20; i++) expectLimited(yield* challenge(i % 2 === 0 ? app : other, account, client))
        expect(yield* challengeHits(app)).toEqual(counted)

        // Another client has its own count; the sign-in limit is another count too.
        const signed = yield* signedChallenge(app)
        expect((yield* verify(app, signed)).headers.get("ratelimit-policy")).toBe("\"sign-in\";q=3;w=60")
        expect((yield* challenge(app, account, { "x-forwarded-for": "203.0.113.8" })).status).toBe(200)

        // Once the window has passed, the client is served again, by both instances.
        app.clock.offsetMs = 61_000
        const later = yield* Effect.all([challenge(app, account, client), challenge(other, account, client)]).pipe(
          Effect.ensuring(Effect.sync(() => (app.clock.offsetMs = 0)))
        )
        expect(later.map((r) => r.status)).toEqual([200, 200])
        yield* second.stop
      }), 60_000)
  }
)
