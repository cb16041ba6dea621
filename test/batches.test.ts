import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { call, employer, signIn } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

/** A contractor whose wallet is registered on-chain, so it is `ready`. */
const readyContractor = (app: TestAppShape, token: string, name: string) =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
    const res = yield* call(app, "POST", "/contractors", { token, json: { name, address: wallet.publicKey() } })
    expect(res.body.status).toBe("ready")
    return { id: res.body.id as string, wallet }
  })

const batchWith = (app: TestAppShape, token: string, contractorIds: ReadonlyArray<string>, name = "November") =>
  Effect.gen(function*() {
    const batch = yield* call(app, "POST", "/batches", { token, json: { name } })
    const payouts = yield* call(app, "POST", `/batches/${batch.body.id}/payouts`, { token, json: { contractorIds } })
    expect(payouts.status).toBe(200)
    return { batchId: batch.body.id as string, payouts: payouts.body as ReadonlyArray<{ id: string; contractorId: string }> }
  })

layer(TestAppLive({}, { ledgerIntervalMs: 20 }))("batches and payouts", (it) => {
  it.effect("routes and state moves, each illegal move a 409 naming the current state", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const a = yield* readyContractor(app, token, "A")
      const b = yield* readyContractor(app, token, "B")
      const invited = yield* call(app, "POST", "/contractors", { token, json: { name: "Not yet" } })

      const created = yield* call(app, "POST", "/batches", { token, json: { name: "  December  " } })
      expect(created.status).toBe(200)
      expect(created.body).toMatchObject({ name: "December", status: "draft", payoutCount: 0, settledCount: 0, failedCount: 0 })
      const id = created.body.id
      const empty = yield* call(app, "POST", `/batches/${id}/ready`, { token })
      expect(empty.status).toBe(409)
      expect(empty.body.error).toContain("at least one payout")

      const notReady = yield* call(app, "POST", `/batches/${id}/payouts`, { token, json: { contractorIds: [invited.body.id] } })
      expect(notReady.status).toBe(409)
      expect(notReady.body.error).toContain("invited")
      const added = yield* call(app, "POST", `/batches/${id}/payouts`, { token, json: { contractorIds: [a.id, b.id] } })
      expect(added.status).toBe(200)
      expect(added.body.map((p: { status: string }) => p.status)).toEqual(["draft", "draft"])
      const twice = yield* call(app, "POST", `/batches/${id}/payouts`, { token, json: { contractorIds: [a.id] } })
      expect(twice.status).toBe(409)
      expect(twice.body.error).toContain("already in this batch")
      expect((yield* call(app, "POST", `/batches/${id}/payouts`, { token, json: { contractorIds: [b.id, b.id] } })).status).toBe(409)

      const removed = yield* call(app, "DELETE", `/batches/${id}/payouts/${added.body[1].id}`, { token })
      expect(removed.status).toBe(204)
      expect((yield* call(app, "GET", `/batches/${id}`, { token })).body.payoutCount).toBe(1)

      const readied = yield* call(app, "POST", `/batches/${id}/ready`, { token })
      expect(readied.status).toBe(200)
      expect(readied.body.status).toBe("ready")
      const payouts = yield* call(app, "GET", `/batches/${id}/payouts`, { token })
      expect(payouts.body.map((p: { status: string }) => p.status)).toEqual(["ready"])

      const again = yield* call(app, "POST", `/batches/${id}/ready`, { token })
      expect(again.status).toBe(409)
      expect(again.body.error).toBe("the batch is ready, not draft")
      for (const [method, path, json] of [
        ["POST", `/batches/${id}/payouts`, { contractorIds: [b.id] }],
        ["DELETE", `/batches/${id}/payouts/${added.body[0].id}`, undefined],
        ["DELETE", `/batches/${id}`, undefined]
      ] as const) {
        const res = yield* call(app, method, path, { token, json })
        expect(res.status, `${method} ${path}`).toBe(409)
        expect(res.body.error).toContain("the batch is ready")
      }

      const scrap = yield* call(app, "POST", "/batches", { token, json: { name: "Scrap" } })
      expect((yield* call(app, "DELETE", `/batches/${scrap.body.id}`, { token })).status).toBe(204)
      expect((yield* call(app, "GET", `/batches/${scrap.body.id}`, { token })).status).toBe(404)
    }))

  it.effect("two concurrent readies: exactly one wins", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const a = yield* readyContractor(app, token, "A")
      const { batchId } = yield* batchWith(app, token, [a.id])
      const replies = yield* Effect.all(
        Array.from({ length: 6 }, () => call(app, "POST", `/batches/${batchId}/ready`, { token })),
        { concurrency: "unbounded" }
      )
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409])
    }))

  it.effect("the list pages with a cursor and filters by status", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const a = yield* readyContractor(app, token, "A")
      for (const name of ["One", "Two", "Three"]) yield* call(app, "POST", "/batches", { token, json: { name } })
      const { batchId } = yield* batchWith(app, token, [a.id], "Four")
      yield* call(app, "POST", `/batches/${batchId}/ready`, { token })
      const first = yield* call(app, "GET", "/batches?limit=3", { token })
      expect(first.body.items.map((b: { name: string }) => b.name)).toEqual(["Four", "Three", "Two"])
      const rest = yield* call(app, "GET", `/batches?limit=3&cursor=${first.body.nextCursor}`, { token })
      expect(rest.body.items.map((b: { name: string }) => b.name)).toEqual(["One"])
      expect(rest.body.nextCursor).toBeUndefined()
      const ready = yield* call(app, "GET", "/batches?status=ready", { token })
      expect(ready.body.items.map((b: { name: string }) => b.name)).toEqual(["Four"])
    }))

  it.effect("another organization's batches, payouts and contractors are 404", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const mine = yield* employer(app, "Mine")
      const theirs = yield* employer(app, "Theirs")
      const a = yield* readyContractor(app, mine.token, "A")
      const foreign = yield* readyContractor(app, theirs.token, "Foreign")
      const { batchId, payouts } = yield* batchWith(app, mine.token, [a.id])
      for (const [method, path, json] of [
        ["GET", `/batches/${batchId}`, undefined],
        ["GET", `/batches/${batchId}/payouts`, undefined],
        ["POST", `/batches/${batchId}/payouts`, { contractorIds: [foreign.id] }],
        ["POST", `/batches/${batchId}/ready`, undefined],
        ["DELETE", `/batches/${batchId}/payouts/${payouts[0]!.id}`, undefined],
        ["DELETE", `/batches/${batchId}`, undefined]
      ] as const) {
        const res = yield* call(app, method, path, { token: theirs.token, json })
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.body.error).toBe("batch not found")
      }
      const list = yield* call(app, "GET", "/batches", { token: theirs.token })
      expect(list.body.items).toEqual([])
      const alien = yield* call(app, "POST", `/batches/${batchId}/payouts`, { token: mine.token, json: { contractorIds: [foreign.id] } })
      expect(alien.status).toBe(404)
      expect(alien.body.error).toContain("contractor")
    }))

  it.effect("a batch from draft to completed, with settled, failed and retried payouts", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app, "Payroll Ltd")
      const [a, b, c] = [yield* readyContractor(app, token, "A"), yield* readyContractor(app, token, "B"), yield* readyContractor(app, token, "C")]
      const { batchId, payouts } = yield* batchWith(app, token, [a!.id, b!.id, c!.id])
      const payoutOf = (contractorId: string) => payouts.find((p) => p.contractorId === contractorId)!.id
      const pay = (contractor: { id: string; wallet: Keypair }, to = contractor.wallet.publicKey()) =>
        call(app, "POST", "/transfer", { token, json: { signedXDR: innerTransfer(app, wallet, { to }), payoutId: payoutOf(contractor.id) } })
      const batch = () => call(app, "GET", `/batches/${batchId}`, { token }).pipe(Effect.map((r) => r.body))

      const early = yield* pay(a!)
      expect(early.status).toBe(422)
      expect(early.body.error).toContain("draft")
      yield* call(app, "POST", `/batches/${batchId}/ready`, { token })

      const paidA = yield* pay(a!)
      expect(paidA.status).toBe(200)
      expect(yield* batch()).toMatchObject({ status: "started", settledCount: 1, failedCount: 0 })
      expect((yield* batch()).startedAt).toBeDefined()
      const listed = yield* call(app, "GET", `/batches/${batchId}/payouts`, { token })
      expect(listed.body.find((p: { id: string }) => p.id === payoutOf(a!.id))).toMatchObject({ status: "settled", hash: paidA.body.hash })
      expect((yield* call(app, "GET", `/contractors/${a!.id}`, { token })).body.lastPaidAt).toBeDefined()
      const twice = yield* pay(a!)
      expect(twice.status).toBe(422)
      expect(twice.body.error).toContain("settled")

      const wrongAddress = yield* pay(b!, Keypair.random().publicKey())
      expect(wrongAddress.status).toBe(422)
      expect(wrongAddress.body).toMatchObject({ rule: "payout" })
      expect(wrongAddress.body.error).toContain("contractor address")

      app.rpc.scriptSend({ kind: "failOnApply" })
      const failedB = yield* pay(b!)
      expect(failedB.status).toBe(422)
      expect(yield* batch()).toMatchObject({ status: "started", settledCount: 1, failedCount: 1 })
      const retriedB = yield* pay(b!)
      expect(retriedB.status).toBe(200)
      expect(yield* batch()).toMatchObject({ status: "started", settledCount: 2, failedCount: 0 })

      app.rpc.scriptSend({ kind: "failOnApply" })
      expect((yield* pay(c!)).status).toBe(422)
      const done = yield* batch()
      expect(done).toMatchObject({ status: "completed", payoutCount: 3, settledCount: 2, failedCount: 1 })
      expect(done.completedAt).toBeDefined()
      const statuses = (yield* call(app, "GET", `/batches/${batchId}/payouts`, { token })).body.map((p: { status: string }) => p.status).sort()
      expect(statuses).toEqual(["failed", "settled", "settled"])
      const settledA = yield* pay(a!)
      expect(settledA.status).toBe(422)
      expect(settledA.body.error).toContain("settled")

      // A failed payout can still be paid once its batch completed: the batch re-opens and completes again.
      const retriedC = yield* pay(c!)
      expect(retriedC.status).toBe(200)
      const again = yield* batch()
      expect(again).toMatchObject({ status: "completed", payoutCount: 3, settledCount: 3, failedCount: 0 })
      expect(new Date(again.completedAt).getTime()).toBeGreaterThan(new Date(done.completedAt).getTime())
      const allSettled = (yield* call(app, "GET", `/batches/${batchId}/payouts`, { token })).body.map((p: { status: string }) => p.status)
      expect(allSettled).toEqual(["settled", "settled", "settled"])

      const contractorToken = yield* signIn(app, a!.wallet)
      const portal = yield* call(app, "GET", "/contractor/payouts", { token: contractorToken })
      expect(portal.status).toBe(200)
      expect(portal.body).toHaveLength(1)
      expect(portal.body[0]).toMatchObject({ company: "Payroll Ltd", batchName: "November", status: "settled", hash: paidA.body.hash })
      const stranger = yield* signIn(app)
      expect((yield* call(app, "GET", "/contractor/payouts", { token: stranger })).body).toEqual([])
    }))
})
