import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { call, employer, signIn } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"

const must = (app: TestAppShape, method: string, path: string, token: string, json?: unknown) =>
  Effect.map(call(app, method, path, json === undefined ? { token } : { token, json }), (reply) => {
    expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300)
    return reply.body
  })

/** `count` ready batches of `org`, each paying `address` once; one more left as a draft (never listed). */
const paysInBatches = (app: TestAppShape, org: { readonly token: string }, address: string, count: number) =>
  Effect.gen(function*() {
    const contractor = yield* must(app, "POST", "/contractors", org.token, { name: "Ada", address })
    for (let i = 0; i <= count; i++) {
      const batch = yield* must(app, "POST", "/batches", org.token, { name: `Run ${i}` })
      yield* must(app, "POST", `/batches/${batch.id}/payouts`, org.token, { contractorIds: [contractor.id] })
      if (i < count) yield* must(app, "POST", `/batches/${batch.id}/ready`, org.token)
    }
  })

const page = (app: TestAppShape, token: string, query: string) => call(app, "GET", `/contractor/payouts${query}`, { token })

/** Every page at `limit`, following `nextCursor` to the end. */
const walk = (app: TestAppShape, token: string, limit: number) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<{ id: string; createdAt: string }>> = []
    let cursor: string | undefined
    do {
      const reply = yield* page(app, token, `?limit=${limit}${cursor === undefined ? "" : `&cursor=${cursor}`}`)
      expect(reply.status).toBe(200)
      pages.push(reply.body.items)
      cursor = reply.body.nextCursor
    } while (cursor !== undefined && pages.length < 50)
    return pages
  })

layer(TestAppLive())("GET /contractor/payouts", (it) => {
  it.effect("pages newest first with limit and cursor, across organizations, draft batches left out", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
      yield* paysInBatches(app, yield* employer(app, "Acme"), wallet.publicKey(), 4)
      yield* paysInBatches(app, yield* employer(app, "Globex"), wallet.publicKey(), 3)
      const token = yield* signIn(app, wallet)

      const all = yield* page(app, token, "")
      expect(all.status).toBe(200)
      expect(Object.keys(all.body)).toEqual(["items"])
      expect(all.body.items).toHaveLength(7)
      expect(new Set(all.body.items.map((p: { company: string }) => p.company))).toEqual(new Set(["Acme", "Globex"]))
      const order = all.body.items.map((p: { createdAt: string; id: string }) => [p.createdAt, p.id].join(" "))
      expect(order).toEqual([...order].sort().reverse())

      for (const limit of fc.sample(fc.integer({ min: 1, max: 8 }), { numRuns: 6, seed: 23 })) {
        const pages = yield* walk(app, token, limit)
        expect(pages.map((p) => p.length), `limit ${limit}`).toEqual(
          Array.from({ length: Math.ceil(7 / limit) }, (_, i) => Math.min(limit, 7 - i * limit))
        )
        expect(pages.flat().map((p) => p.id)).toEqual(all.body.items.map((p: { id: string }) => p.id))
      }
      const first = yield* page(app, token, "?limit=7")
      expect(first.body.nextCursor).toBeUndefined()

      const stranger = yield* page(app, yield* signIn(app), "?limit=5")
      expect(stranger.status).toBe(200)
      expect(stranger.body).toEqual({ items: [] })
    }), 120_000)

  it.effect("a limit outside 1 to 100 or a cursor this service did not hand out is 400 {error}", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      const limits = fc.oneof(fc.integer({ min: -5, max: 0 }), fc.integer({ min: 101, max: 10_000 }), fc.constantFrom("1.5", "x", "", "1e3", "-0x10"))
      for (const limit of fc.sample(limits, { numRuns: 25, seed: 23 })) {
        const reply = yield* page(app, token, `?limit=${encodeURIComponent(String(limit))}`)
        expect(reply.status, String(limit)).toBe(400)
        expect(typeof reply.body.error).toBe("string")
      }
      const cursors = fc.oneof(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/),
        fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString("base64url")).filter((c) => c.length > 0 && c.length <= 200),
        fc.tuple(fc.double().filter((d) => !Number.isInteger(d) || d < 0), fc.uuid()).map((v) => Buffer.from(JSON.stringify(v)).toString("base64url"))
      )
      for (const cursor of fc.sample(cursors, { numRuns: 60, seed: 23 })) {
        const reply = yield* page(app, token, `?cursor=${encodeURIComponent(cursor)}`)
        expect(reply.status, cursor).toBe(400)
        expect(typeof reply.body.error).toBe("string")
      }
    }), 60_000)
})
