import { expect, layer } from "@effect/vitest"
import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Keypair, Networks, StrKey, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect, Fiber, Redacted } from "effect"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { call, employer } from "./support/Client.ts"
import { type LoopbackEvent, type LoopbackRpc, tokenEvents } from "./support/LoopbackRpc.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"
import { waitFor } from "./support/WaitFor.ts"

const FAST = { ARCHIVE_POLL_INTERVAL: "50 millis", ARCHIVE_LEASE: "2 seconds", ARCHIVE_PAGE_SIZE: "5" }
const bytes = (n: number) => new Uint8Array(randomBytes(n))
const checkpointFields = () => ({ r_e_point: bytes(64), sigma: bytes(32), b_tilde: bytes(32), v_tilde_aud_s: bytes(32), b_tilde_aud_s: bytes(32) })
const transferFields = () => ({
  r_e_point: bytes(64), v_tilde: bytes(32), sigma: bytes(32), b_tilde: bytes(32), v_tilde_aud_r: bytes(32),
  r_tilde_aud_r: bytes(32), v_tilde_aud_s: bytes(32), b_tilde_aud_s: bytes(32)
})

interface Served {
  readonly id: string
  readonly ledger: number
  readonly txHash: string
  readonly txApplicationOrder: number
  readonly eventIndex: number
  readonly type: string
  readonly topics: ReadonlyArray<string>
  readonly value: string
}

const nameOf = (e: LoopbackEvent) => {
  const first = e.topics[0]
  return first?.type === "scvSymbol" ? first.sym.toString() : ""
}

/** What the archive must serve of a loopback event: its id, position and payload exactly as on chain. */
const expected = (rpc: LoopbackRpc, e: LoopbackEvent) => ({
  id: rpc.eventId(e),
  ledger: e.ledger,
  txHash: e.txHash,
  txApplicationOrder: e.txOrder,
  eventIndex: e.eventIndex,
  type: nameOf(e),
  topics: e.topics.map((t) => t.toXdr("base64")),
  value: e.data.toXdr("base64")
})
const project = (e: Served) => ({
  id: e.id, ledger: e.ledger, txHash: e.txHash, txApplicationOrder: e.txApplicationOrder, eventIndex: e.eventIndex,
  type: e.type, topics: e.topics, value: e.value
})

const get = (app: Pick<TestAppShape, "url">, path: string) => call(app, "GET", path)

/** Waits until the archive is ingested through `ledger`. */
const ingestedThrough = (app: Pick<TestAppShape, "url">, ledger: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const status = yield* get(app, "/archive/status")
      if (status.status === 200 && (status.body.ingestedThrough ?? 0) >= ledger) return status.body
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage(`the archive never reached ledger ${ledger}`)
  })

/** Every page of a history, following `cursor`. */
const allPages = (app: Pick<TestAppShape, "url">, path: string, query: Record<string, string>) =>
  Effect.gen(function*() {
    const events: Array<Served> = []
    let cursor: string | null = null
    let complete = true
    let pages = 0
    do {
      const params = new URLSearchParams({ ...query, ...(cursor === null ? {} : { cursor }) })
      const reply = yield* get(app, `${path}?${params}`)
      expect(reply.status).toBe(200)
      events.push(...reply.body.events)
      complete &&= reply.body.complete
      cursor = reply.body.cursor
      pages += 1
    } while (cursor !== null)
    return { events, complete, pages }
  })

/** Publishes the token's events for a small history: a register each, transfers, a withdraw, spenders, a merge. */
const history = (rpc: LoopbackRpc, a: string, b: string, c: string) => {
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.register(a, 0)])
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.register(b, 3), tokenEvents.deposit(c, b, 500n)])
  rpc.advanceLedger()
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.transfer(a, b, transferFields())])
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.transfer(b, a, transferFields()), tokenEvents.merge(b)])
  rpc.advanceLedger()
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.withdraw(a, c, 7n, checkpointFields())])
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.setSpender(b, a, 99999, checkpointFields())])
  rpc.advanceLedger()
  rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.spenderTransfer(a, b, c, {
    r_e_point: bytes(64), v_tilde: bytes(32), sigma_a: bytes(32), v_tilde_aud_r: bytes(32), r_tilde_aud_r: bytes(32),
    v_tilde_aud_s: bytes(32), a_tilde_aud_s: bytes(32)
  })])
  return rpc.advanceLedger()
}

layer(TestAppLive(FAST, { ledgerIntervalMs: 0 }), { timeout: 60_000, excludeTestServices: true })("the confidential event archive", (it) => {
  it.effect("ingests the token's events and serves them verbatim: stream, attribution, types, pages, checkpoint (C1–C4)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const [a, b, c] = [Keypair.random().publicKey(), Keypair.random().publicKey(), StrKey.encodeContract(randomBytes(32))]
      const first = app.rpc.latestLedger + 1
      const last = history(app.rpc, a, b, c)
      const status = yield* ingestedThrough(app, last)
      expect(status.latestLedger).toBeGreaterThanOrEqual(last)
      expect(status.gaps).toEqual([])
      // C4's lag is the age of the last ingested ledger's close: asked again now, between two readings of the clock.
      const asked = Date.now()
      const again = (yield* call(app, "GET", "/archive/status")).body
      const answered = Date.now()
      const closed = app.rpc.closeTimeOf(again.ingestedThrough)! // milliseconds, as the loopback ledger keeps them
      expect(again.lagSeconds).toBeGreaterThanOrEqual(Math.floor((asked - closed) / 1000) - 1)
      expect(again.lagSeconds).toBeLessThanOrEqual(Math.ceil((answered - closed) / 1000) + 1)

      const mine = app.rpc.events.filter((e) => e.ledger >= first && e.ledger <= last)
      const base = `/archive/tokens/${CONFIDENTIAL_TOKEN}`
      const stream = yield* allPages(app, `${base}/events`, { fromLedger: String(first), toLedger: String(last), limit: "2" })
      expect(stream.complete).toBe(true)
      expect(stream.pages).toBe(Math.ceil(mine.length / 2))
      expect(stream.events.map(project)).toEqual(mine.map((e) => expected(app.rpc, e)))

      const touches = (account: string) => (e: LoopbackEvent) => e.topics.slice(1).some((t) => t.type === "scvAddress" && t.toXdr("base64") === StellarAddressTopic(account))
      for (const account of [a, b, c]) {
        const history = yield* allPages(app, `${base}/accounts/${account}/events`, { fromLedger: String(first), toLedger: String(last), limit: "3" })
        expect(history.complete).toBe(true)
        expect(history.events.map(project)).toEqual(mine.filter(touches(account)).map((e) => expected(app.rpc, e)))
      }
      const transfers = yield* allPages(app, `${base}/accounts/${a}/events`, { fromLedger: String(first), types: "transfer,withdraw" })
      expect(transfers.events.map((e) => e.type)).toEqual(["transfer", "transfer", "withdraw"])

      // a's latest checkpoint: its withdraw (the transfer it received after its own is no checkpoint of it); a never
      // merged, so its replay starts after its register
      const checkpoint = yield* get(app, `${base}/accounts/${a}/checkpoint?atLedger=${last}`)
      expect(checkpoint.status).toBe(200)
      expect(checkpoint.body.complete).toBe(true)
      expect(project(checkpoint.body.event)).toEqual(expected(app.rpc, mine.find((e) => nameOf(e) === "withdraw")!))
      expect(checkpoint.body.anchor.type).toBe("register")
      expect(checkpoint.body.anchor.topics[1]).toBe(StellarAddressTopic(a))
      // b's: the set_spender of its own, anchored at the merge before it; before that, the transfer b sent, whose
      // merge came after it in the same ledger: anchored at b's register
      const ofB = yield* get(app, `${base}/accounts/${b}/checkpoint?atLedger=${last}`)
      expect(ofB.body.event.type).toBe("set_spender")
      expect(ofB.body.anchor.type).toBe("merge")
      const earlier = yield* get(app, `${base}/accounts/${b}/checkpoint?atLedger=${ofB.body.event.ledger - 1}`)
      expect(earlier.body.event.type).toBe("transfer")
      expect(earlier.body.event.topics[1]).toBe(StellarAddressTopic(b))
      expect(earlier.body.anchor.type).toBe("register")
      // c only received and deposited: no checkpoint, and no register of its own in the archive
      const ofC = yield* get(app, `${base}/accounts/${c}/checkpoint`)
      expect(ofC.body).toEqual({ event: null, anchor: null, complete: true })

      const unknown = yield* get(app, `/archive/tokens/${StrKey.encodeContract(randomBytes(32))}/events`)
      expect(unknown.status).toBe(404)
      const backwards = yield* get(app, `${base}/events?fromLedger=${last}&toLedger=${first}`)
      expect(backwards.status).toBe(400)
      const ahead = yield* get(app, `${base}/events?fromLedger=${first}&toLedger=${last + 1000}`)
      expect(ahead.body.complete).toBe(false)
    }))

  it.effect("a register event makes a directory contractor ready, with its viewing key, without /check", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const client = yield* api(app, token)
      const wallet = Keypair.random().publicKey()
      const created = yield* client.contractors.create({ payload: { name: "Ada", address: StellarAddress.make(wallet) } })
      expect(created.status).toBe("invited")
      const registered = app.rpc.registerConfidentialWithEvent(CONFIDENTIAL_TOKEN, wallet, { auditorId: 4 })
      const ledger = app.rpc.advanceLedger()
      yield* ingestedThrough(app, ledger)
      let status = ""
      for (let i = 0; i < 100 && status !== "ready"; i++) {
        status = (yield* client.contractors.get({ path: { id: created.id } })).status
        if (status !== "ready") yield* Effect.sleep("50 millis")
      }
      const ready = yield* client.contractors.get({ path: { id: created.id } })
      expect(ready.status).toBe("ready")
      expect(ready.pvk._tag === "Some" ? ready.pvk.value : undefined).toBe(Buffer.from(registered.viewingPublicKey).toString("hex"))
      expect(ready.auditorId._tag === "Some" ? ready.auditorId.value : undefined).toBe(4)
    }))

  it.effect("a sponsored transfer settles from its transfer event while polling cannot see it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token, wallet } = yield* walletEmployer(app)
      app.rpc.rewriteAnswers("getTransaction", (result) => ({ ...result, status: "NOT_FOUND" }))
      const signed = innerTransfer(app, wallet)
      const innerHash = Buffer.from(TransactionBuilder.fromXDR(signed, Networks.TESTNET).hash()).toString("hex")
      const posting = yield* Effect.fork(postTransfer(app, token, signed))
      const landed = yield* Effect.promise(() => waitFor(() => app.rpc.transactions.find((t) => t.innerHash === innerHash && t.status === "PENDING")))
      const ledger = app.rpc.advanceLedger()
      expect(app.rpc.transaction(landed.hash)?.status).toBe("SUCCESS")
      yield* ingestedThrough(app, ledger)
      let state = ""
      for (let i = 0; i < 100 && state !== "SUCCESS"; i++) {
        const reply = yield* call(app, "GET", `/transfers/${innerHash}`, { token })
        state = reply.body.status
        if (state !== "SUCCESS") yield* Effect.sleep("50 millis")
      }
      expect(state).toBe("SUCCESS")
      const archived = yield* get(app, `/archive/tokens/${CONFIDENTIAL_TOKEN}/events?fromLedger=${ledger}&toLedger=${ledger}&types=transfer`)
      expect(archived.body.events.map((e: Served) => e.txHash)).toEqual([landed.hash])
      yield* Fiber.interrupt(posting)
      app.rpc.clearRewrites()
    }))

  it.effect("hostile query parameters never answer 5xx", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const text = fc.oneof(fc.string({ maxLength: 40 }), fc.integer().map(String), fc.constantFrom("", "-1", "0", "1e3", "9".repeat(30), "0005302424889733120-0000000000"))
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.constantFrom("events", "accountEvents", "checkpoint"),
            fc.oneof(fc.constant(CONFIDENTIAL_TOKEN), fc.string({ maxLength: 60 })),
            fc.oneof(fc.constant(Keypair.random().publicKey()), fc.string({ maxLength: 60 })),
            fc.dictionary(fc.constantFrom("fromLedger", "toLedger", "types", "cursor", "limit", "atLedger"), text),
            async (route, contract, account, query) => {
              const base = `/archive/tokens/${encodeURIComponent(contract)}`
              const path = route === "events" ? `${base}/events` : `${base}/accounts/${encodeURIComponent(account)}/${route === "checkpoint" ? "checkpoint" : "events"}`
              const response = await fetch(`${app.url}${path}?${new URLSearchParams(query)}`)
              const body = await response.json() as { error?: unknown }
              expect(response.status).toBeLessThan(500)
              if (response.status >= 400) expect(typeof body.error).toBe("string")
            }
          ),
          { numRuns: 150 }
        )
      )
    }))
})

/** An address as the topic the token publishes it in. */
function StellarAddressTopic(address: string) {
  return tokenEvents.register(address, 0).topics[1]!.toXdr("base64")
}

layer(TestAppLive({ ...FAST, ARCHIVE_PAGE_SIZE: "100" }, { ledgerIntervalMs: 0 }), { timeout: 60_000, excludeTestServices: true })("the archive and the RPC's retention", (it) => {
  it.effect("a gap the RPC no longer retains is reported incomplete, never served as complete; later ledgers are", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const a = Keypair.random().publicKey()
      app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.register(a, 0)])
      const before = app.rpc.advanceLedger()
      yield* ingestedThrough(app, before)
      app.rpc.setFault({ kind: "http500" }, { methods: ["getEvents"] })
      const lostFrom = app.rpc.latestLedger + 1
      for (let i = 0; i < 5; i++) {
        app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.merge(a)])
        app.rpc.advanceLedger()
      }
      const lostTo = app.rpc.latestLedger
      app.rpc.advanceLedger(5)
      app.rpc.setRetention(3)
      app.rpc.setFault(null)
      app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.merge(a)])
      const after = app.rpc.advanceLedger()
      yield* ingestedThrough(app, after)
      const base = `/archive/tokens/${CONFIDENTIAL_TOKEN}/accounts/${a}/events`
      const across = yield* get(app, `${base}?fromLedger=${before}&toLedger=${after}`)
      expect(across.body.complete).toBe(false)
      expect(across.body.events.some((e: Served) => e.ledger >= lostFrom && e.ledger <= lostTo)).toBe(false)
      const gap = yield* get(app, `${base}?fromLedger=${lostFrom}&toLedger=${lostTo}`)
      expect(gap.body).toEqual({ events: [], cursor: null, complete: false })
      const since = yield* get(app, `${base}?fromLedger=${app.rpc.latestLedger - 2}`)
      expect(since.body.complete).toBe(true)
      expect(since.body.events.map((e: Served) => e.ledger)).toContain(after)
      // no checkpoint: the replay runs from a's register, across the gap
      const checkpoint = yield* get(app, `/archive/tokens/${CONFIDENTIAL_TOKEN}/accounts/${a}/checkpoint?atLedger=${after}`)
      expect(checkpoint.body.event).toBeNull()
      expect(checkpoint.body.anchor.type).toBe("register")
      expect(checkpoint.body.complete).toBe(false)
      // the status names the permanent gap: from the first ledger missed up to the RPC's retention floor
      const status = yield* get(app, "/archive/status")
      expect(status.body.gaps).toHaveLength(1)
      const [lost] = status.body.gaps
      expect(lost.fromLedger).toBe(before + 1)
      expect(lost.toLedger).toBeGreaterThanOrEqual(lostTo)
      expect(lost.toLedger).toBeLessThan(after)
      const beyond = yield* get(app, `${base}?fromLedger=${lost.toLedger + 1}&toLedger=${after}`)
      expect(beyond.body.complete).toBe(true)
    }))
})

layer(TestAppLive({ ...FAST, ARCHIVE_PAGE_SIZE: "100" }, { ledgerIntervalMs: 0 }), { timeout: 60_000, excludeTestServices: true })("the archive across instances", (it) => {
  it.effect("two instances ingest through one lease holder; a restarted instance resumes where the archive stopped", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const sql = yield* PgClient.make({ url: Redacted.make(app.config.DATABASE_URL!), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
      const second = yield* app.startInstance
      const holders = new Set<string>()
      for (let i = 0; i < 10; i++) {
        app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.merge(Keypair.random().publicKey())])
        app.rpc.advanceLedger()
        const rows = yield* sql<{ owner: string }>`SELECT owner FROM archive_leases WHERE lease_until > now()`
        for (const row of rows) holders.add(row.owner)
        yield* Effect.sleep("60 millis")
      }
      expect(holders.size).toBe(1)
      const through = yield* ingestedThrough(app, app.rpc.latestLedger)
      const start = (yield* sql<{ fromLedger: number }>`SELECT from_ledger AS "fromLedger" FROM archive_ranges`)[0]!.fromLedger
      const counted = yield* sql<{ n: string }>`SELECT count(*) AS n FROM archive_events`
      expect(Number(counted[0]!.n)).toBe(app.rpc.events.filter((e) => e.ledger >= start && e.ledger <= through.ingestedThrough).length)

      const [holder] = [...holders]
      yield* second.stop
      // the holder gives its lease back on shutdown: whichever instance is left holds it soon after
      let next = holder
      for (let i = 0; i < 100; i++) {
        app.rpc.advanceLedger()
        const rows = yield* sql<{ owner: string }>`SELECT owner FROM archive_leases WHERE lease_until > now()`
        next = rows[0]?.owner
        if (next !== undefined) break
        yield* Effect.sleep("50 millis")
      }
      expect(next).toBeDefined()
      app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.merge(Keypair.random().publicKey())])
      const later = app.rpc.advanceLedger(3)
      yield* ingestedThrough(app, later)
      const third = yield* app.startInstance
      app.rpc.publishEvents(CONFIDENTIAL_TOKEN, [tokenEvents.merge(Keypair.random().publicKey())])
      const last = app.rpc.advanceLedger()
      yield* ingestedThrough({ url: third.url }, last)
      const ranges = yield* sql<{ fromLedger: number; toLedger: number }>`SELECT from_ledger AS "fromLedger", to_ledger AS "toLedger" FROM archive_ranges`
      expect(ranges.length).toBe(1)
      expect(ranges[0]!.toLedger).toBeGreaterThanOrEqual(last)
      const archived = yield* sql<{ n: string }>`SELECT count(*) AS n FROM archive_events`
      expect(Number(archived[0]!.n)).toBe(app.rpc.events.filter((e) => e.ledger >= start && e.ledger <= ranges[0]!.toLedger).length)
      yield* third.stop
    }).pipe(Effect.scoped))
})
