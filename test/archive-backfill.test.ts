import { expect, layer } from "@effect/vitest"
import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Fiber, Redacted } from "effect"
import { clawback, eventsOf } from "./support/ArchiveEventVersions.ts"
import { call } from "./support/Client.ts"
import type { PublishedEvent } from "./support/LoopbackEvents.ts"
import { FIRST_LEDGER } from "./support/LoopbackLedger.ts"
import { backend } from "./support/TestDatabase.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

// Issue 23 §2, "Done means": migration 0020 on an archive of 100,000 events while ingestion goes on. The events are
// loaded with SQL below the ledgers the service ingests (as bench/archive.ts does), flagged as the archive flagged them
// before (every revoke_spender its owner's checkpoint, whatever its shape); the job is recorded as the migration
// records it; two more instances run the backfill side by side, one of them stops half-way; the first instance
// ingests the whole time, and each ledger it is given is timed from publication to the archive's status.

const EVENTS = 100_000
const ACCOUNTS = 2_000
const CONFIG = {
  ARCHIVE_POLL_INTERVAL: "50 millis",
  ARCHIVE_LEASE: "2 seconds",
  ARCHIVE_PAGE_SIZE: "100",
  ARCHIVE_RATE_LIMIT: "100000000"
}
const v1 = eventsOf("8af46e2c")
const v2 = eventsOf("0fd261c2")
const nameOf = (event: PublishedEvent) => {
  const first = event.topics[0]
  return first?.type === "scvSymbol" ? first.sym.toString() : ""
}

/** Twenty kinds of event, the mix repeating every twenty: which event, how many address topics, the old flag of its first. */
const slots = (() => {
  const [a, b, c] = Array.from({ length: 3 }, () => Keypair.random().publicKey())
  const kinds = [
    ...Array.from({ length: 6 }, () => ({ event: v1.transfer(a!, b!), arity: 2, oldFlag: true })),
    ...Array.from({ length: 6 }, () => ({ event: v2.transfer(a!, b!), arity: 2, oldFlag: true })),
    { event: v1.merge(a!), arity: 1, oldFlag: false },
    { event: v2.merge(a!), arity: 1, oldFlag: false },
    { event: v2.deposit(a!, b!, 10n), arity: 2, oldFlag: false },
    { event: v2.withdraw(a!, b!, 10n), arity: 2, oldFlag: true },
    { event: v1.revokeSpender(a!, b!), arity: 2, oldFlag: true },
    // the one kind whose flag the backfill changes: a proofless revoke_spender was flagged like the old one
    { event: v2.revokeSpender(a!, b!), arity: 2, oldFlag: true, changes: true },
    { event: clawback(a!, 10n), arity: 1, oldFlag: false },
    { event: v2.spenderTransfer(a!, b!, c!), arity: 3, oldFlag: false }
  ]
  return {
    types: kinds.map((k) => nameOf(k.event)),
    symbols: kinds.map((k) => k.event.topics[0]!.toXdr("base64")),
    values: kinds.map((k) => k.event.data.toXdr("base64")),
    arity: kinds.map((k) => k.arity),
    oldFlags: kinds.map((k) => k.oldFlag),
    changing: kinds.filter((k) => "changes" in k).length
  }
})()

const get = (app: Pick<TestAppShape, "url">, path: string) => call(app, "GET", path)
const ingestedThrough = (app: Pick<TestAppShape, "url">) =>
  get(app, "/archive/status").pipe(Effect.map((reply) => (reply.body.ingestedThrough ?? 0) as number))

layer(TestAppLive(CONFIG, { ledgerIntervalMs: 0 }), { timeout: 240_000, excludeTestServices: true })("migration 0020 on a large archive", (it) => {
  it.effect(`recomputes the flags of ${EVENTS.toLocaleString("en")} archived events in the background while ingestion goes on`, () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      const sql = yield* PgClient.make({ url: Redacted.make(app.config.DATABASE_URL!), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
      const accounts = Array.from({ length: ACCOUNTS }, () => Keypair.random().publicKey())
      const accountTopics = accounts.map((a) => v1.merge(a).topics[1]!.toXdr("base64"))
      while ((yield* ingestedThrough(app)) < FIRST_LEDGER) yield* Effect.sleep("50 millis")

      // ---- the archive as it stood: 100,000 events in ledgers 1..999 (ingested already, empty), one to three accounts each ----
      const per = Math.ceil(EVENTS / (FIRST_LEDGER - 1))
      const loading = Date.now()
      const generated = `
        SELECT i, i % 20 + 1 AS slot, i / ${per} + 1 AS ledger, i % ${per} + 1 AS tx,
          i % ${ACCOUNTS} + 1 AS a1, (i % ${ACCOUNTS} + 1 + (i / ${ACCOUNTS}) % (${ACCOUNTS} - 1)) % ${ACCOUNTS} + 1 AS a2,
          (i % ${ACCOUNTS} + ${ACCOUNTS / 2}) % ${ACCOUNTS} + 1 AS a3
        FROM generate_series(0, ${EVENTS - 1}) AS i`
      yield* sql`
        INSERT INTO archive_events (id, contract_id, ledger_seq, ledger_close_time, tx_hash, tx_application_order,
          event_index, type, topics, value)
        SELECT lpad(((g.ledger::bigint << 32) | (g.tx::bigint << 12))::text, 19, '0') || '-0000000000', ${CONFIDENTIAL_TOKEN},
          g.ledger, now() - interval '30 days', md5(g.i::text) || md5((g.i + 1)::text), g.tx, 0,
          (${slots.types}::text[])[g.slot],
          (ARRAY[(${slots.symbols}::text[])[g.slot], (${accountTopics}::text[])[g.a1], (${accountTopics}::text[])[g.a2],
            (${accountTopics}::text[])[g.a3]])[1:(${slots.arity}::int[])[g.slot] + 1],
          (${slots.values}::text[])[g.slot]
        FROM (${sql.literal(generated)}) AS g`
      yield* sql`
        INSERT INTO archive_event_accounts (contract_id, account, ledger_seq, tx_application_order, event_index, event_id,
          type, checkpoint)
        SELECT ${CONFIDENTIAL_TOKEN}, (${accounts}::text[])[s.account], g.ledger, g.tx, 0,
          lpad(((g.ledger::bigint << 32) | (g.tx::bigint << 12))::text, 19, '0') || '-0000000000',
          (${slots.types}::text[])[g.slot], s.position = 1 AND (${slots.oldFlags}::boolean[])[g.slot]
        FROM (${sql.literal(generated)}) AS g
        CROSS JOIN LATERAL (VALUES (1, g.a1), (2, g.a2), (3, g.a3)) AS s(position, account)
        WHERE s.position <= (${slots.arity}::int[])[g.slot]
        ON CONFLICT DO NOTHING`
      yield* sql`VACUUM (ANALYZE) archive_events`
      yield* sql`VACUUM (ANALYZE) archive_event_accounts`
      const loaded = Date.now() - loading
      const stale = (yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM archive_event_accounts WHERE type = 'revoke_spender' AND checkpoint`)[0]!.n

      // ---- the migration's own statement on it (the job it records), timed; then the job as it records it ----
      const migrating = performance.now()
      yield* sql`
        INSERT INTO archive_backfills (name, until_id, done_at)
        SELECT 'measured', max(id), CASE WHEN max(id) IS NULL THEN now() END FROM archive_events`
      const migration = performance.now() - migrating
      yield* sql`DELETE FROM archive_backfills WHERE name = 'measured'`
      yield* sql`
        UPDATE archive_backfills SET position = '', until_id = (SELECT max(id) FROM archive_events), events = 0, changed = 0,
          done_at = NULL
        WHERE name = 'attribution-2'`
      const inScope = (yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM archive_events WHERE id <= (SELECT until_id FROM archive_backfills WHERE name = 'attribution-2')`)[0]!.n
      expect(inScope).toBeGreaterThanOrEqual(EVENTS)

      // ---- ingestion: a ledger of 10 events every 100 ms, each timed from publication until the status reaches it;
      // first without the backfill (the baseline), then while it runs ----
      const ingestOne = Effect.gen(function*() {
        const owner = Keypair.random().publicKey()
        rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.register(owner)])
        for (let i = 0; i < 9; i++) rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.transfer(owner, accounts[i]!)])
        const ledger = rpc.advanceLedger()
        const published = Date.now()
        while ((yield* ingestedThrough(app)) < ledger) yield* Effect.sleep("5 millis")
        const delay = Date.now() - published
        yield* Effect.sleep("100 millis")
        return delay
      })
      const baseline: Array<number> = []
      for (let i = 0; i < 30; i++) baseline.push(yield* ingestOne)
      let backfilling = true
      const delays: Array<number> = []
      const ingesting = yield* Effect.fork(Effect.gen(function*() {
        while (backfilling) delays.push(yield* ingestOne)
      }))

      const started = Date.now()
      const [second, third] = yield* Effect.all([app.startInstance, app.startInstance], { concurrency: 2 })
      const job = () =>
        sql<{ events: number; changed: number; done: boolean }>`
          SELECT events, changed, done_at IS NOT NULL AS done FROM archive_backfills WHERE name = 'attribution-2'`.pipe(
          Effect.map((rows) => rows[0]!)
        )
      let stoppedAt: number | undefined
      let progress = yield* job()
      while (!progress.done) {
        if (stoppedAt === undefined && progress.events >= EVENTS / 3) {
          // one of the two backfilling instances goes away half-way: the other carries on from the last commit
          stoppedAt = progress.events
          yield* second.stop
        }
        yield* Effect.sleep("20 millis")
        progress = yield* job()
        expect(Date.now() - started).toBeLessThan(200_000)
      }
      const took = Date.now() - started
      backfilling = false
      yield* Fiber.join(ingesting)
      const after: Array<number> = []
      for (let i = 0; i < 20; i++) after.push(yield* ingestOne)

      // Every event in the job's scope read exactly once across both instances; exactly the proofless revoke_spender
      // rows changed; nothing else.
      expect(progress).toEqual({ events: inScope, changed: EVENTS / 20 * slots.changing, done: true })
      expect(stoppedAt).toBeDefined()
      const flagged = yield* sql<{ shape: string; n: number }>`
        SELECT CASE WHEN e.value = ${slots.values[17]!} THEN 'proofless' ELSE 'proof' END AS shape, count(*)::int AS n
        FROM archive_event_accounts a JOIN archive_events e ON e.id = a.event_id
        WHERE a.type = 'revoke_spender' AND a.checkpoint GROUP BY 1 ORDER BY 1`
      expect(flagged).toEqual([{ shape: "proof", n: stale - EVENTS / 20 }])

      const summary = (ms: ReadonlyArray<number>) => {
        const sorted = [...ms].sort((a, b) => a - b)
        const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]
        return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`
      }
      console.log(
        `[archive backfill figures, ${backend}] ${inScope.toLocaleString("en")} archived events (loaded in ${loaded} ms): ` +
          `migration 0020's statement ${migration.toFixed(1)} ms; background recompute ${took} ms ` +
          `(${Math.ceil(inScope / 1000)} batches of 1,000, ${progress.changed.toLocaleString("en")} flags changed, one of two ` +
          `instances stopped at ${stoppedAt!.toLocaleString("en")}); a ledger of 10 events, publication → archived: ` +
          `${summary(baseline)} before (${baseline.length} ledgers), ${summary(delays)} during (${delays.length}), ` +
          `${summary(after)} after (${after.length})`
      )
      expect(delays.length).toBeGreaterThan(5)
      yield* third.stop
    }).pipe(Effect.scoped), 240_000)
})
