import { expect, layer } from "@effect/vitest"
import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Keypair, StrKey, xdr } from "@stellar/stellar-sdk"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { clawback, eventsOf, sparse } from "./support/ArchiveEventVersions.ts"
import { BASE, checkpointAt, history, ingestedThrough } from "./support/ArchiveReads.ts"
import { call } from "./support/Client.ts"
import { type LoopbackEvent, type LoopbackRpc } from "./support/LoopbackRpc.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

// Issue 23 §2: the token moved on (OpenZeppelin/stellar-contracts 8af46e2c → 0fd261c2, see
// test/support/ArchiveEventVersions.ts); the archive holds both versions' events side by side. A checkpoint follows
// the event's own shape (a revoke_spender only while it carried (b_tilde, sigma)); a clawback is a replay anchor like
// a merge; the compliance events are attributed by their topics and filterable by type.

const FAST = { ARCHIVE_POLL_INTERVAL: "50 millis", ARCHIVE_LEASE: "2 seconds", ARCHIVE_PAGE_SIZE: "5" }
const v1 = eventsOf("8af46e2c")
const v2 = eventsOf("0fd261c2")

const nameOf = (e: LoopbackEvent) => {
  const first = e.topics[0]
  return first?.type === "scvSymbol" ? first.sym.toString() : ""
}
const dataKeys = (value: string) => {
  const data = xdr.ScVal.fromXdr(value, "base64")
  return data.type === "scvMap" ? (data.map ?? []).map((entry) => entry.key.type === "scvSymbol" ? entry.key.sym.toString() : "") : []
}
const topicOf = (address: string) => v1.merge(address).topics[1]!.toXdr("base64")

/** The ids the RPC gives the token's events of `[from, to]`, in order. */
const published = (rpc: LoopbackRpc, from: number, to: number, keep: (e: LoopbackEvent) => boolean = () => true) =>
  rpc.events.filter((e) => e.contractId === CONFIDENTIAL_TOKEN && e.ledger >= from && e.ledger <= to && keep(e)).map((e) => rpc.eventId(e))

const sqlOf = (app: TestAppShape) =>
  PgClient.make({ url: Redacted.make(app.config.DATABASE_URL!), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

layer(TestAppLive(FAST, { ledgerIntervalMs: 0 }), { timeout: 60_000, excludeTestServices: true })("the archive across the token's versions", (it) => {
  it.effect("both versions' events are stored verbatim; a proofless revoke_spender is never a checkpoint; a clawback is attributed and anchors", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      const [alice, bob, spender, auditor] = Array.from({ length: 4 }, () => Keypair.random().publicKey())
      const seized = StrKey.encodeContract(randomBytes(32))
      const policy = StrKey.encodeContract(randomBytes(32))
      const first = rpc.latestLedger + 1

      // The token as deployed at 8af46e2c.
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.register(alice!), v1.register(bob!, 2)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.complianceConfigChanged(undefined, false)])
      rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.deposit(auditor!, alice!, 900n)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.merge(alice!)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.transfer(alice!, bob!)])
      const v1Checkpoints = rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.setSpender(alice!, spender!, 99_999)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v1.revokeSpender(alice!, spender!)]) // a proof's checkpoint then
      const v1Revoked = rpc.advanceLedger()

      // The token upgraded to 0fd261c2: compliance on, and revoke_spender proofless.
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.complianceConfigChanged(policy, true)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.setSpender(alice!, spender!, 199_999)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.spenderTransfer(spender!, alice!, bob!)])
      const v2SetSpender = rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.revokeSpender(alice!, spender!)]) // a fold, no checkpoint
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.transfer(bob!, alice!)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.merge(bob!)])
      const v2Revoked = rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.frozen(bob!)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [clawback(bob!, 40n, seized)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.revokeSpender(bob!, spender!), v2.unfrozen(bob!)])
      const seizedAt = rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.withdraw(bob!, auditor!, 5n)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [clawback(alice!, 7n)])
      const last = rpc.advanceLedger()
      yield* ingestedThrough(app, last)

      // Every event verbatim, both versions, in the chain's order: the contract stream holds what no topic attributes.
      const stream = yield* history(app, `${BASE}/events`, { fromLedger: String(first), toLedger: String(last) })
      expect(stream.complete).toBe(true)
      const mine = rpc.events.filter((e) => e.contractId === CONFIDENTIAL_TOKEN && e.ledger >= first && e.ledger <= last)
      expect(stream.events.map((e) => [e.id, e.type, e.topics, e.value])).toEqual(
        mine.map((e) => [rpc.eventId(e), nameOf(e), e.topics.map((t) => t.toXdr("base64")), e.data.toXdr("base64")])
      )
      const compliance = yield* history(app, `${BASE}/events`, {
        fromLedger: String(first),
        types: "clawback,frozen,unfrozen,compliance_config_changed"
      })
      expect(compliance.events.map((e) => e.type)).toEqual([
        "compliance_config_changed", "compliance_config_changed", "frozen", "clawback", "unfrozen", "clawback"
      ])
      expect(dataKeys(compliance.events[3]!.value)).toEqual(["amount", "destination"])

      // Attribution by topics: a clawback belongs to its target alone (its destination is data, not a topic); the
      // configuration change to no account at all.
      const ofBob = yield* history(app, `${BASE}/accounts/${bob}/events`, { fromLedger: String(first) })
      const touchesBob = (e: LoopbackEvent) => e.topics.slice(1).some((t) => t.toXdr("base64") === topicOf(bob!))
      expect(ofBob.events.map((e) => e.id)).toEqual(published(rpc, first, last, touchesBob))
      const compliant = ofBob.events.filter((e) => ["frozen", "clawback", "unfrozen"].includes(e.type))
      expect(compliant.map((e) => e.type)).toEqual(["frozen", "clawback", "unfrozen"])
      const ofSeized = yield* history(app, `${BASE}/accounts/${seized}/events`, { fromLedger: String(first) })
      expect(ofSeized.events).toEqual([])
      const ofPolicy = yield* history(app, `${BASE}/accounts/${policy}/events`, { fromLedger: String(first) })
      expect(ofPolicy.events).toEqual([])
      const bobsClawbacks = yield* history(app, `${BASE}/accounts/${bob}/events`, { fromLedger: String(first), types: "clawback" })
      expect(bobsClawbacks.events).toHaveLength(1)
      expect(bobsClawbacks.events[0]!.topics[1]).toBe(topicOf(bob!))

      // C1 follows each event's own shape. Alice's old-shape revoke_spender was a checkpoint; her proofless one never is.
      const atV1Revoke = yield* checkpointAt(app, alice!, v1Revoked)
      expect(atV1Revoke.event!.type).toBe("revoke_spender")
      expect(dataKeys(atV1Revoke.event!.value)).toContain("b_tilde")
      expect(atV1Revoke.anchor!.type).toBe("merge")
      const atV2SetSpender = yield* checkpointAt(app, alice!, v2SetSpender)
      expect(atV2SetSpender.event!.type).toBe("set_spender")
      expect(dataKeys(atV2SetSpender.event!.value)).toContain("r_a_tilde_aud_s")
      const afterV2Revoke = yield* checkpointAt(app, alice!, v2Revoked)
      expect(afterV2Revoke.event!.id).toBe(atV2SetSpender.event!.id)
      expect(afterV2Revoke.complete).toBe(true)

      // Bob: his v2 transfer is his checkpoint, anchored at his register (his merge came after it); his clawback
      // later anchors the withdraw that follows it, as a merge would.
      const bobAtSeizure = yield* checkpointAt(app, bob!, seizedAt)
      expect(bobAtSeizure.event!.type).toBe("transfer")
      expect(bobAtSeizure.event!.topics[1]).toBe(topicOf(bob!))
      expect(bobAtSeizure.anchor!.type).toBe("register")
      const bobLast = yield* checkpointAt(app, bob!, last)
      expect(bobLast.event!.type).toBe("withdraw")
      expect(dataKeys(bobLast.event!.value)).toContain("r_tilde_aud_s")
      expect(bobLast.anchor!.type).toBe("clawback")
      expect(bobLast.anchor!.ledger).toBe(seizedAt)
      expect(bobLast.complete).toBe(true)
      // Alice's clawback came after her last checkpoint: it anchors nothing yet; the answer stays her set_spender's.
      const aliceLast = yield* checkpointAt(app, alice!, last)
      expect(aliceLast.event!.id).toBe(atV2SetSpender.event!.id)
      expect(aliceLast.anchor!.type).toBe("merge")

      // At every ledger, for every account: never a revoke_spender without (b_tilde, sigma).
      for (const account of [alice!, bob!, spender!, auditor!]) {
        for (let ledger = first; ledger <= last; ledger++) {
          const answer = yield* checkpointAt(app, account, ledger)
          if (answer.event?.type === "revoke_spender") expect(dataKeys(answer.event.value)).toEqual(expect.arrayContaining(["b_tilde", "sigma"]))
          expect(answer.event === null || answer.event.ledger <= ledger).toBe(true)
        }
      }
      // The spender is in every delegation's topics but never checkpoints through the owner's events.
      expect((yield* checkpointAt(app, spender!, last)).event).toBeNull()
      expect(v1Checkpoints).toBeLessThan(v1Revoked)
    }))

  it.effect("a token on soroban-sdk 28 leaves a None out of the data (CAP-86): stored verbatim, attributed, a bare clawback still anchors", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      const [dana, erin] = Array.from({ length: 2 }, () => Keypair.random().publicKey())
      const first = rpc.latestLedger + 1
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.register(dana!), v2.register(erin!)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [sparse(v2.complianceConfigChanged(undefined, false))])
      rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.transfer(dana!, erin!)])
      rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [sparse(clawback(dana!, 9n))])
      const clawedAt = rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.withdraw(dana!, erin!, 1n)])
      const last = rpc.advanceLedger()
      yield* ingestedThrough(app, last)

      const compliance = yield* history(app, `${BASE}/events`, { fromLedger: String(first), types: "clawback,compliance_config_changed" })
      expect(compliance.events.map((e) => [e.type, dataKeys(e.value)])).toEqual([
        ["compliance_config_changed", ["sac_passthrough"]],
        ["clawback", ["amount"]]
      ])
      const sent = rpc.events.filter((e) => e.contractId === CONFIDENTIAL_TOKEN && ["clawback", "compliance_config_changed"].includes(nameOf(e)) && e.ledger >= first)
      expect(compliance.events.map((e) => e.value)).toEqual(sent.map((e) => e.data.toXdr("base64")))
      const danasClawbacks = yield* history(app, `${BASE}/accounts/${dana}/events`, { fromLedger: String(first), types: "clawback" })
      expect(danasClawbacks.events.map((e) => e.ledger)).toEqual([clawedAt])
      const at = yield* checkpointAt(app, dana!, last)
      expect(at.event!.type).toBe("withdraw")
      expect(at.anchor!.type).toBe("clawback")
      expect(at.anchor!.ledger).toBe(clawedAt)
      expect(at.complete).toBe(true)
    }))

  it.effect("rows archived before the shape rule are recomputed by the backfill; until then C1 passes over them", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      const sql = yield* sqlOf(app)
      const [carol, spender] = Array.from({ length: 2 }, () => Keypair.random().publicKey())
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.register(carol!)])
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.setSpender(carol!, spender!, 500_000)])
      const setAt = rpc.advanceLedger()
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.revokeSpender(carol!, spender!)])
      const revokedAt = rpc.advanceLedger()
      yield* ingestedThrough(app, revokedAt)

      // What the archive wrote before this change: every revoke_spender flagged its owner's checkpoint.
      const stale = yield* sql<{ n: number }>`
        UPDATE archive_event_accounts SET checkpoint = true
        WHERE type = 'revoke_spender' AND NOT checkpoint AND account = ${carol!} RETURNING 1 AS n`
      expect(stale).toHaveLength(1)
      // C1 reads the event again and passes over it.
      const meanwhile = yield* checkpointAt(app, carol!, revokedAt)
      expect(meanwhile.event!.type).toBe("set_spender")
      expect(meanwhile.event!.ledger).toBe(setAt)

      // The job migration 0020 records for an archive that held events; another instance takes it up at its start.
      yield* sql`
        UPDATE archive_backfills SET position = '', until_id = (SELECT max(id) FROM archive_events), events = 0,
          changed = 0, done_at = NULL
        WHERE name = 'attribution-2'`
      const counted = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM archive_events`)[0]!.n
      const second = yield* app.startInstance
      let job: { events: number; changed: number; done: boolean } | undefined
      for (let i = 0; i < 200 && job?.done !== true; i++) {
        yield* Effect.sleep("50 millis")
        job = (yield* sql<{ events: number; changed: number; done: boolean }>`
          SELECT events, changed, done_at IS NOT NULL AS done FROM archive_backfills WHERE name = 'attribution-2'`)[0]
      }
      expect(job).toEqual({ events: counted, changed: 1, done: true })
      const flagged = yield* sql<{ type: string }>`
        SELECT type FROM archive_event_accounts WHERE account = ${carol!} AND checkpoint ORDER BY ledger_seq`
      expect(flagged.map((r) => r.type)).toEqual(["set_spender"])
      expect((yield* checkpointAt(second, carol!, revokedAt)).event!.ledger).toBe(setAt)
      yield* second.stop
    }).pipe(Effect.scoped))

  it.effect("a holder that crashed keeps the lease until it lapses: ingestion pauses for at most ARCHIVE_LEASE", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const rpc = app.rpc
      const sql = yield* sqlOf(app)
      const account = Keypair.random().publicKey()
      yield* ingestedThrough(app, rpc.advanceLedger())

      // Another instance took the lease and died without giving it back (no shutdown ran): its last renewal stands.
      const crashed = yield* sql<{ leaseUntil: Date }>`
        UPDATE archive_leases SET owner = 'crashed-instance', lease_until = now() + interval '2 seconds'
        WHERE name = 'archive-ingester' RETURNING lease_until AS "leaseUntil"`
      expect(crashed).toHaveLength(1)
      const since = Date.now()
      // a round under way when the lease changed hands still commits the page it read (at least once, deduplicated):
      // the ledger comes after it
      yield* Effect.sleep("300 millis")
      rpc.publishEvents(CONFIDENTIAL_TOKEN, [v2.register(account)])
      const published = rpc.advanceLedger()
      yield* Effect.sleep("900 millis")
      expect((yield* call(app, "GET", "/archive/status")).body.ingestedThrough).toBeLessThan(published)
      yield* ingestedThrough(app, published)
      const paused = Date.now() - since
      console.log(`[archive lease figures] a crashed holder's lease (ARCHIVE_LEASE 2 s, poll 50 ms): ingestion resumed after ${paused} ms`)
      expect(paused).toBeGreaterThanOrEqual(1_500)
      // the lease's 2 s, one poll, one round; the rest is room for a loaded machine
      expect(paused).toBeLessThan(2_000 + 2_500)
    }).pipe(Effect.scoped))
})
