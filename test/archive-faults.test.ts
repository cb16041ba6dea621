import { describe, expect, it, layer } from "@effect/vitest"
import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Keypair } from "@stellar/stellar-sdk"
import { Context, Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { call } from "./support/Client.ts"
import { type LoopbackRpc, tokenEvents } from "./support/LoopbackRpc.ts"
import { privateCluster } from "./support/PrivateCluster.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

// Issue 17 §1: the ingester "survives RPC faults, a lagging node and database outages and resumes from its last
// committed position". Two drills: the service's own PostgreSQL cluster stopped and restarted while events keep
// coming, and a Stellar RPC node that serves an older latest ledger while the network goes on.

const FAST = { ARCHIVE_POLL_INTERVAL: "50 millis", ARCHIVE_LEASE: "2 seconds", ARCHIVE_PAGE_SIZE: "5" }
const BASE = `/archive/tokens/${CONFIDENTIAL_TOKEN}`
const bytes = (n: number) => new Uint8Array(randomBytes(n))
const checkpointFields = () => ({ r_e_point: bytes(64), sigma: bytes(32), b_tilde: bytes(32), v_tilde_aud_s: bytes(32), b_tilde_aud_s: bytes(32) })

interface Status {
  readonly latestLedger: number | null
  readonly ingestedThrough: number | null
  readonly lagSeconds: number | null
}

const get = (app: Pick<TestAppShape, "url">, path: string) => call(app, "GET", path)

const status = (app: Pick<TestAppShape, "url">) =>
  get(app, "/archive/status").pipe(
    Effect.tap((reply) => expect(reply.status).toBe(200)),
    Effect.map((reply) => reply.body as Status)
  )

/** Waits until the archive reports itself ingested through `ledger` (at most `seconds`). */
const ingestedThrough = (app: Pick<TestAppShape, "url">, ledger: number, seconds = 20) =>
  Effect.gen(function*() {
    const deadline = Date.now() + seconds * 1000
    for (;;) {
      const reply = yield* get(app, "/archive/status")
      if (reply.status === 200 && (reply.body.ingestedThrough ?? 0) >= ledger) return reply.body as Status
      if (Date.now() > deadline) return yield* Effect.dieMessage(`the archive never reached ledger ${ledger}: ${JSON.stringify(reply.body)}`)
      yield* Effect.sleep("50 millis")
    }
  })

/** Every page of the whole-contract stream in a ledger range, following `cursor`. */
const stream = (app: Pick<TestAppShape, "url">, query: Record<string, string>) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    let cursor: string | null = null
    let complete = true
    do {
      const params = new URLSearchParams({ ...query, limit: "7", ...(cursor === null ? {} : { cursor }) })
      const reply = yield* get(app, `${BASE}/events?${params}`)
      expect(reply.status).toBe(200)
      ids.push(...reply.body.events.map((e: { id: string }) => e.id))
      complete &&= reply.body.complete
      cursor = reply.body.cursor
    } while (cursor !== null)
    return { ids, complete }
  })

/** The ids getEvents gives the token's events in `[from, to]`, in the chain's order. */
const published = (rpc: LoopbackRpc, from: number, to: number) =>
  rpc.events.filter((e) => e.contractId === CONFIDENTIAL_TOKEN && e.ledger >= from && e.ledger <= to).map((e) => rpc.eventId(e))

/**
 * Publishes `ledgers` ledgers of the token's events for `account`, `perLedger` transactions each (some of them with two
 * events), so a ledger holds more events than one getEvents page (5). The latest ledger.
 */
const publish = (rpc: LoopbackRpc, account: string, ledgers: number, perLedger: number) => {
  for (let l = 0; l < ledgers; l++) {
    for (let t = 0; t < perLedger; t++) {
      rpc.publishEvents(
        CONFIDENTIAL_TOKEN,
        t % 2 === 0
          ? [tokenEvents.merge(account)]
          : [tokenEvents.deposit(Keypair.random().publicKey(), account, BigInt(t + 1)), tokenEvents.withdraw(account, account, 1n, checkpointFields())]
      )
    }
    rpc.advanceLedger()
  }
  return rpc.latestLedger
}

interface Sample {
  /** When the request was sent. */
  readonly at: number
  /** When its answer (or its failure) came back. */
  readonly answeredAt: number
  readonly route: string
  readonly status: number | "refused"
  readonly retryAfter: string | null
  readonly tag: unknown
  /** What /archive/status answered as `ingestedThrough`. */
  readonly through?: unknown
}

/** A reader that keeps calling every archive route until `stop()`, recording each answer. */
const readers = (app: TestAppShape, account: string) => {
  const samples: Array<Sample> = []
  const routes = [
    "/archive/status",
    `${BASE}/events?limit=3`,
    `${BASE}/accounts/${account}/events?limit=3`,
    `${BASE}/accounts/${account}/checkpoint`
  ]
  let running = true
  const done = (async () => {
    for (let i = 0; running; i++) {
      const route = routes[i % routes.length]!
      const at = Date.now()
      try {
        const response = await fetch(`${app.url}${route}`, { signal: AbortSignal.timeout(10_000) })
        const body = await response.json().catch(() => null) as { _tag?: unknown; ingestedThrough?: unknown } | null
        samples.push({
          at, answeredAt: Date.now(), route, status: response.status, retryAfter: response.headers.get("retry-after"), tag: body?._tag, through: body?.ingestedThrough
        })
      } catch {
        samples.push({ at, answeredAt: Date.now(), route, status: "refused", retryAfter: null, tag: undefined })
      }
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return { samples, stop: () => ((running = false), done) }
}

/** One query on the cluster, with a connection of its own (the pool of the service is not the test's). */
const sqlOn = <A extends object>(url: string, query: (sql: PgClient.PgClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    return yield* query(sql)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

describe("the archive through a database outage (a private PostgreSQL cluster)", () => {
  it.live("PostgreSQL stopped and restarted while events keep coming: 503 meanwhile, then every event exactly once, contiguous, resumed", () =>
    Effect.gen(function*() {
      const cluster = yield* privateCluster
      const context = yield* Layer.build(TestAppLive({ ...FAST, DATABASE_URL: cluster.url, WORKER_MAX_BACKOFF: "200 millis" }, { ledgerIntervalMs: 0 }))
      const app = Context.get(context, TestApp)
      const account = Keypair.random().publicKey()

      // Before: ingested and committed.
      const before = publish(app.rpc, account, 3, 3)
      yield* ingestedThrough(app, before)
      const [startRange] = yield* sqlOn(cluster.url, (sql) => sql<{ from: number; to: number }>`SELECT from_ledger AS "from", to_ledger AS "to" FROM archive_ranges`)
      expect(startRange!.to).toBeGreaterThanOrEqual(before)

      const reading = readers(app, account)
      yield* Effect.sleep("300 millis")
      // A burst published just before the database goes away: 120 events, 24 pages of 5 for the ingester to commit.
      const burst = publish(app.rpc, account, 30, 4)
      const stopping = Date.now()
      yield* cluster.stop
      const down = Date.now()
      // During: the chain goes on.
      for (let i = 0; i < 4; i++) {
        publish(app.rpc, account, 2, 3)
        yield* Effect.sleep("500 millis")
      }
      const during = app.rpc.latestLedger
      const restarting = Date.now()
      yield* cluster.start
      // After.
      const after = publish(app.rpc, account, 3, 3)
      const reached = yield* ingestedThrough(app, after, 30)
      yield* Effect.sleep("200 millis")
      yield* Effect.promise(() => reading.stop())

      // The archive holds every event the token published, exactly once, in the chain's order, from one contiguous range.
      expect(burst).toBeLessThan(during)
      expect(during).toBeLessThan(after)
      const all = yield* stream(app, {})
      expect(all.complete).toBe(true)
      expect(all.ids).toEqual(published(app.rpc, startRange!.from, after))
      expect(new Set(all.ids).size).toBe(all.ids.length)
      const ranged = yield* stream(app, { fromLedger: String(startRange!.from), toLedger: String(after) })
      expect(ranged).toEqual(all)
      const history = yield* get(app, `${BASE}/accounts/${account}/events?limit=1000`)
      expect(history.body.complete).toBe(true)
      expect(history.body.events.length).toBe(published(app.rpc, 1, after).length)

      const ranges = yield* sqlOn(cluster.url, (sql) => sql<{ from: number; to: number }>`SELECT from_ledger AS "from", to_ledger AS "to" FROM archive_ranges`)
      // Resumed from its last committed position: the range it had before the outage, extended, never restarted.
      expect(ranges).toEqual([{ from: startRange!.from, to: after }])
      const counted = yield* sqlOn(cluster.url, (sql) => sql<{ n: number; distinct: number }>`
        SELECT count(*)::int AS n, count(DISTINCT (ledger_seq, tx_application_order, event_index))::int AS "distinct" FROM archive_events`)
      expect(counted[0]).toEqual({ n: all.ids.length, distinct: all.ids.length })

      const final = yield* status(app)
      expect(reached.ingestedThrough).toBe(after)
      expect(final.ingestedThrough).toBe(app.rpc.latestLedger)
      expect(final.latestLedger).toBe(app.rpc.latestLedger)
      expect(final.lagSeconds).toBeGreaterThanOrEqual(0)
      expect(final.lagSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - app.rpc.closeTimeOf(after)!) / 1000) + 1)

      // While the database was down the archive answered the declared 503 with Retry-After: never a 500, never a hang.
      const samples = reading.samples
      const outage = samples.filter((s) => s.at >= down + 500 && s.at < restarting)
      const unavailable = samples.filter((s) => s.status === 503)
      console.log(`[archive outage] ${samples.length} reads, ${outage.length} during the outage, ${unavailable.length} answered 503`)
      expect(samples.filter((s) => s.status !== 200 && s.status !== 503)).toEqual([])
      expect(outage.length).toBeGreaterThan(20)
      expect(new Set(outage.map((s) => s.route)).size).toBe(4)
      expect(outage.filter((s) => s.status !== 503)).toEqual([])
      expect(unavailable.filter((s) => s.retryAfter === null || Number(s.retryAfter) <= 0 || s.tag !== "ServiceUnavailable")).toEqual([])
      // Answered before the stop began: a read sent just before it may meet the stopping server, which is the outage.
      expect(samples.filter((s) => s.answeredAt < stopping && s.status !== 200)).toEqual([])
      expect(samples.filter((s) => s.at >= restarting).some((s) => s.status === 200)).toBe(true)
      // What the status said it was ingested through never went back: it resumed where it had committed.
      const throughs = samples.filter((s) => s.route === "/archive/status" && s.status === 200).map((s) => s.through as number)
      expect(throughs.length).toBeGreaterThan(5)
      expect(throughs).toEqual([...throughs].sort((a, b) => a - b))
      expect(throughs[0]).toBeGreaterThanOrEqual(before)
    }).pipe(Effect.scoped), 60_000)
})

layer(TestAppLive(FAST, { ledgerIntervalMs: 0 }), { timeout: 60_000, excludeTestServices: true })("the archive and a lagging RPC node", (it) => {
  it.effect("events published while the node lags are ingested exactly once after it catches up; the status never runs ahead of it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      const account = Keypair.random().publicKey()
      const first = rpc.latestLedger + 1
      const synced = publish(rpc, account, 2, 3)
      yield* ingestedThrough(app, synced)

      /** Samples the status for `ms`: it never claims more than the node served, and its lag is the served ledger's age. */
      const watch = (served: number, through: number, ms: number) =>
        Effect.gen(function*() {
          const deadline = Date.now() + ms
          let last: Status | undefined
          while (Date.now() < deadline) {
            const before = Date.now()
            const s = yield* status(app)
            const after = Date.now()
            expect(s.ingestedThrough).toBe(through)
            expect(s.latestLedger).toBeLessThanOrEqual(served)
            expect(s.latestLedger).toBeGreaterThanOrEqual(through)
            // lagSeconds: seconds since `through` closed (close times are whole seconds, so up to one more)
            const closed = rpc.closeTimeOf(through)!
            expect(s.lagSeconds).toBeGreaterThanOrEqual(Math.floor((before - closed) / 1000) - 1)
            expect(s.lagSeconds).toBeLessThanOrEqual(Math.ceil((after - closed) / 1000) + 1)
            last = s
            yield* Effect.sleep("100 millis")
          }
          return last!
        })

      // 1. The node stalls at the archive's own position while the network closes 4 more ledgers, one of them with more
      // events than a page.
      rpc.lag(synced)
      const stalled = publish(rpc, account, 2, 3)
      const crowded = publish(rpc, account, 1, 7) // 10 events: two full pages
      const ahead = publish(rpc, account, 1, 3)
      expect(ahead).toBe(synced + 4)
      const waited = yield* watch(synced, synced, 2_200)
      expect(waited.latestLedger).toBe(synced)
      expect(waited.lagSeconds).toBeGreaterThanOrEqual(1) // the tail goes stale while the node is stuck
      const unseen = yield* get(app, `${BASE}/events?fromLedger=${synced + 1}&toLedger=${ahead}`)
      expect(unseen.body).toEqual({ events: [], cursor: null, complete: false })

      // 2. It catches up part of the way, to the crowded ledger: exactly that much is ingested, and no more.
      rpc.lag(crowded)
      yield* ingestedThrough(app, crowded)
      yield* watch(crowded, crowded, 400)
      expect((yield* status(app)).latestLedger).toBe(crowded)
      const part = yield* stream(app, { fromLedger: String(first), toLedger: String(crowded) })
      expect(part.complete).toBe(true)
      expect(part.ids).toEqual(published(rpc, first, crowded))
      const beyond = yield* get(app, `${BASE}/events?fromLedger=${crowded + 1}`)
      expect(beyond.body.events).toEqual([])

      // 3. The archive is now served by a node behind it (behind a load balancer, say): nothing regresses, nothing is
      // re-ingested, nothing is lost; the network keeps publishing.
      rpc.lag(stalled)
      const later = publish(rpc, account, 2, 3)
      const behind = yield* watch(crowded, crowded, 800)
      expect(behind.latestLedger).toBe(crowded)
      expect(yield* stream(app, { fromLedger: String(first), toLedger: String(crowded) })).toEqual(part)

      // 4. Caught up: every event published across the lag, exactly once, in order, contiguous.
      rpc.lag(null)
      const last = publish(rpc, account, 1, 3)
      expect(last).toBe(later + 1)
      yield* ingestedThrough(app, last)
      const whole = yield* stream(app, { fromLedger: String(first), toLedger: String(last) })
      expect(whole.complete).toBe(true)
      expect(whole.ids).toEqual(published(rpc, first, last))
      expect(new Set(whole.ids).size).toBe(whole.ids.length)
      expect(whole.ids.length).toBe(8 + 8 + 10 + 4 + 8 + 4) // 4 events a ledger of 3 transactions, 10 in the crowded one
      const final = yield* status(app)
      expect(final.ingestedThrough).toBe(last)
      expect(final.latestLedger).toBe(last)
      expect(final.lagSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - rpc.closeTimeOf(last)!) / 1000) + 1)
    }))
})
