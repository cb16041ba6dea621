import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { call, employer } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

interface Raw {
  readonly status: number
  readonly text: string
  readonly headers: Headers
}

/** A POST whose answer is kept as the bytes that came, to compare replays byte for byte. */
const post = (url: string, path: string, token: string, body: unknown, key?: string) =>
  Effect.promise(async (): Promise<Raw> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" }
    if (key !== undefined) headers["idempotency-key"] = key
    const response = await fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) })
    return { status: response.status, text: await response.text(), headers: response.headers }
  })

const batchCount = (app: TestAppShape, token: string) =>
  Effect.map(call(app, "GET", "/batches?limit=100", { token }), (r) => (r.body.items as ReadonlyArray<unknown>).length)

const readyContractor = (app: TestAppShape, token: string, name: string) =>
  Effect.gen(function*() {
    const client = yield* api(app, token)
    const wallet = Keypair.random()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
    return yield* client.contractors.create({ payload: { name, address: StellarAddress.make(wallet.publicKey()) } })
  })

layer(TestAppLive({}, { ledgerIntervalMs: 20 }))("Idempotency-Key", (it) => {
  it.effect("a retry replays the first answer byte for byte and creates nothing twice", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const first = yield* post(app.url, "/batches", token, { name: "November" }, "\"retry-1\"")
      expect(first.status).toBe(200)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const again = yield* post(app.url, "/batches", token, { name: "November" }, "\"retry-1\"")
      expect(again.status).toBe(200)
      expect(again.text).toBe(first.text)
      expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"))
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"))
      // The same JSON with other whitespace or key order is the same request; a bare key is the same key.
      const spaced = yield* Effect.promise(() =>
        fetch(`${app.url}/batches`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "retry-1" },
          body: "{ \"name\" :  \"November\" }"
        }).then((r) => r.text())
      )
      expect(spaced).toBe(first.text)
      expect(yield* batchCount(app, token)).toBe(1)

      // Without a key, or with another one, the request runs again.
      expect((yield* post(app.url, "/batches", token, { name: "November" })).status).toBe(200)
      expect((yield* post(app.url, "/batches", token, { name: "November" }, "retry-2")).status).toBe(200)
      expect(yield* batchCount(app, token)).toBe(3)
    }))

  it.effect("another body, or another operation, with the same key is 422; a malformed key is 400", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      expect((yield* post(app.url, "/batches", token, { name: "A" }, "reused")).status).toBe(200)
      const other = yield* post(app.url, "/batches", token, { name: "B" }, "reused")
      expect(other.status).toBe(422)
      expect(JSON.parse(other.text)).toMatchObject({ _tag: "IdempotencyKeyReused" })
      const elsewhere = yield* post(app.url, "/contractors", token, { name: "A" }, "reused")
      expect(elsewhere.status).toBe(422)
      expect(yield* batchCount(app, token)).toBe(1)

      for (const bad of ["", "\"\"", "a b", "\"unterminated", "x".repeat(256), "é"]) {
        const refused = yield* post(app.url, "/batches", token, { name: "C" }, bad)
        expect(refused.status, JSON.stringify(bad)).toBe(400)
        expect(JSON.parse(refused.text)).toMatchObject({ _tag: "InvalidRequest" })
      }
      expect((yield* post(app.url, "/batches", token, { name: "C" }, "x".repeat(255))).status).toBe(200)
      expect((yield* post(app.url, "/batches", token, { name: "D" }, "\"with space and \\\"quote\\\"\"")).status).toBe(200)
    }))

  it.effect("client errors are kept and replayed, as the draft asks; a key is per signed-in user", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const a = yield* employer(app, "A Inc")
      const b = yield* employer(app, "B Inc")
      const contractor = yield* readyContractor(app, a.token, "Ada")
      const body = { name: "Ada again", address: contractor.address._tag === "Some" ? contractor.address.value : "" }
      const duplicate = yield* post(app.url, "/contractors", a.token, body, "dup")
      expect(duplicate.status).toBe(409)
      const replayed = yield* post(app.url, "/contractors", a.token, body, "dup")
      expect(replayed.status).toBe(409)
      expect(replayed.text).toBe(duplicate.text)
      expect(replayed.headers.get("idempotent-replayed")).toBe("true")

      // Another organization's employer with the same key and body: their own request, run.
      const theirs = yield* post(app.url, "/contractors", b.token, body, "dup")
      expect(theirs.status).toBe(200)
      expect(JSON.parse(theirs.text)).toMatchObject({ name: "Ada again" })
    }))

  it.effect("concurrent requests with one key: one runs, the others are 409 or its replay; one batch", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const answers = yield* Effect.all(
        Array.from({ length: 8 }, () => post(app.url, "/batches", token, { name: "Race" }, "race")),
        { concurrency: "unbounded" }
      )
      const statuses = answers.map((a) => a.status)
      expect(statuses.every((s) => s === 200 || s === 409)).toBe(true)
      const created = answers.filter((a) => a.status === 200)
      expect(created.length).toBeGreaterThanOrEqual(1)
      expect(new Set(created.map((a) => a.text)).size).toBe(1)
      for (const busy of answers.filter((a) => a.status === 409)) {
        expect(JSON.parse(busy.text)).toMatchObject({ _tag: "Conflict", error: expect.stringContaining("in progress") })
      }
      expect(yield* batchCount(app, token)).toBe(1)
    }))

  it.effect("another instance on the same database replays the answer", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const other = yield* app.startInstance
      const first = yield* post(app.url, "/batches", token, { name: "Shared" }, "across")
      const there = yield* post(other.url, "/batches", token, { name: "Shared" }, "across")
      expect(there.status).toBe(200)
      expect(there.text).toBe(first.text)
      expect((yield* post(other.url, "/batches", token, { name: "Other" }, "across")).status).toBe(422)
      expect(yield* batchCount(app, token)).toBe(1)
      yield* other.stop
    }))

  it.effect("POST /batches/{id}/payouts and POST /transfer take the header", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token, wallet } = yield* walletEmployer(app, "Keyed Co")
      const client = yield* api(app, token)
      const batch = yield* client.batches.create({ payload: { name: "Keyed" } })
      const contractor = yield* readyContractor(app, token, "Grace")
      const path = `/batches/${batch.id}/payouts`
      const added = yield* post(app.url, path, token, { contractorIds: [contractor.id] }, "payouts-1")
      expect(added.status).toBe(200)
      const again = yield* post(app.url, path, token, { contractorIds: [contractor.id] }, "payouts-1")
      expect(again.status).toBe(200)
      expect(again.text).toBe(added.text)
      expect((yield* client.batches.get({ path: { id: batch.id } })).payoutCount).toBe(1)

      const signedXDR = innerTransfer(app, wallet)
      const sent = yield* post(app.url, "/transfer", token, { signedXDR }, "transfer-1")
      expect(sent.status).toBe(200)
      const resent = yield* post(app.url, "/transfer", token, { signedXDR }, "transfer-1")
      expect(resent.text).toBe(sent.text)
      // Without the key the envelope is the key, as before.
      expect((yield* post(app.url, "/transfer", token, { signedXDR })).text).toBe(sent.text)
    }))
})

layer(TestAppLive({}, { ledgerIntervalMs: 20 }))("payout pages", (it) => {
  it.effect("GET /batches/{id}/payouts is paged by cursor, newest first", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const client = yield* api(app, token)
      const batch = yield* client.batches.create({ payload: { name: "Paged" } })
      const ids = []
      for (const name of ["A", "B", "C"]) {
        const contractor = yield* readyContractor(app, token, name)
        ids.push(...(yield* client.batches.addPayouts({ path: { id: batch.id }, payload: { contractorIds: [contractor.id] } })).map((p) => p.id))
      }
      const first = yield* client.batches.payouts({ path: { id: batch.id }, urlParams: { limit: 2 } })
      expect(first.items.map((p) => p.id)).toEqual([ids[2], ids[1]])
      expect(first.nextCursor).toBeDefined()
      const second = yield* client.batches.payouts({ path: { id: batch.id }, urlParams: { limit: 2, cursor: first.nextCursor! } })
      expect(second.items.map((p) => p.id)).toEqual([ids[0]])
      expect(second.nextCursor).toBeUndefined()
      const all = yield* client.batches.payouts({ path: { id: batch.id }, urlParams: {} })
      expect(all.items).toHaveLength(3)
      expect(all.nextCursor).toBeUndefined()

      const bad = yield* call(app, "GET", `/batches/${batch.id}/payouts?cursor=nope`, { token })
      expect(bad.status).toBe(400)
      expect(bad.body.error).toBe("invalid cursor")
      expect((yield* call(app, "GET", `/batches/${batch.id}/payouts?limit=0`, { token })).status).toBe(400)
    }))
})
