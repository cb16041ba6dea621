import { expect, layer } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { DateTime, Effect, Either, Option } from "effect"
import type { ContractorId } from "../src/Domain/Ids.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { call, employer, signIn } from "./support/Client.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

/** The error a request failed with, as its tag and fields. */
const failure = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flip(effect).pipe(
    Effect.map((e) => ({ ...e }) as { readonly _tag: E["_tag"]; readonly error?: string; readonly rule?: string })
  )

/** A contractor whose wallet is registered on-chain, so it is `ready`. */
const readyContractor = (app: TestAppShape, token: string, name: string) =>
  Effect.gen(function*() {
    const client = yield* api(app, token)
    const wallet = Keypair.random()
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
    const created = yield* client.contractors.create({ payload: { name, address: StellarAddress.make(wallet.publicKey()) } })
    expect(created.status).toBe("ready")
    return { id: created.id, wallet }
  })

const batchWith = (app: TestAppShape, token: string, contractorIds: ReadonlyArray<ContractorId>, name = "November") =>
  Effect.gen(function*() {
    const client = yield* api(app, token)
    const batch = yield* client.batches.create({ payload: { name } })
    const payouts = yield* client.batches.addPayouts({ path: { id: batch.id }, payload: { contractorIds } })
    return { batchId: batch.id, payouts }
  })

layer(TestAppLive({}, { ledgerIntervalMs: 20 }))("batches and payouts", (it) => {
  it.effect("routes and state moves, each illegal move a 409 naming the current state", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const client = yield* api(app, token)
      const a = yield* readyContractor(app, token, "A")
      const b = yield* readyContractor(app, token, "B")
      const invited = yield* client.contractors.create({ payload: { name: "Not yet" } })

      // The typed client trims nothing and would refuse to encode an untrimmed name: the server's trimming is raw.
      const raw = yield* call(app, "POST", "/batches", { token, json: { name: "  December  " } })
      expect(raw.status).toBe(200)
      expect(raw.body).toMatchObject({ name: "December", status: "draft", payoutCount: 0, settledCount: 0, failedCount: 0 })
      const created = yield* client.batches.get({ path: { id: raw.body.id } })
      expect(created).toMatchObject({ name: "December", status: "draft", payoutCount: 0, settledCount: 0, failedCount: 0 })
      const id = created.id
      const empty = yield* failure(client.batches.ready({ path: { id } }))
      expect(empty._tag).toBe("Conflict")
      expect(empty.error).toContain("at least one payout")

      const notReady = yield* failure(client.batches.addPayouts({ path: { id }, payload: { contractorIds: [invited.id] } }))
      expect(notReady._tag).toBe("Conflict")
      expect(notReady.error).toContain("invited")
      const added = yield* client.batches.addPayouts({ path: { id }, payload: { contractorIds: [a.id, b.id] } })
      expect(added.map((p) => p.status)).toEqual(["draft", "draft"])
      const twice = yield* failure(client.batches.addPayouts({ path: { id }, payload: { contractorIds: [a.id] } }))
      expect(twice._tag).toBe("Conflict")
      expect(twice.error).toContain("already in this batch")
      expect((yield* failure(client.batches.addPayouts({ path: { id }, payload: { contractorIds: [b.id, b.id] } })))._tag)
        .toBe("Conflict")

      yield* client.batches.removePayout({ path: { id, payoutId: added[1]!.id } })
      expect((yield* client.batches.get({ path: { id } })).payoutCount).toBe(1)

      const readied = yield* client.batches.ready({ path: { id } })
      expect(readied.status).toBe("ready")
      const { items: payouts } = yield* client.batches.payouts({ path: { id }, urlParams: {} })
      expect(payouts.map((p) => p.status)).toEqual(["ready"])

      const again = yield* failure(client.batches.ready({ path: { id } }))
      expect(again._tag).toBe("Conflict")
      expect(again.error).toBe("the batch is ready, not draft")
      for (const [label, request] of [
        ["add payouts", client.batches.addPayouts({ path: { id }, payload: { contractorIds: [b.id] } })],
        ["remove payout", client.batches.removePayout({ path: { id, payoutId: added[0]!.id } })],
        ["remove batch", client.batches.remove({ path: { id } })]
      ] as const) {
        const res = yield* failure<unknown, { readonly _tag: string }, never>(request)
        expect(res._tag, label).toBe("Conflict")
        expect(res.error).toContain("the batch is ready")
      }

      const scrap = yield* client.batches.create({ payload: { name: "Scrap" } })
      yield* client.batches.remove({ path: { id: scrap.id } })
      expect((yield* failure(client.batches.get({ path: { id: scrap.id } })))._tag).toBe("NotFound")
    }))

  it.effect("two concurrent readies: exactly one wins", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const client = yield* api(app, token)
      const a = yield* readyContractor(app, token, "A")
      const { batchId } = yield* batchWith(app, token, [a.id])
      const replies = yield* Effect.all(
        Array.from({ length: 6 }, () => client.batches.ready({ path: { id: batchId } }).pipe(Effect.either)),
        { concurrency: "unbounded" }
      )
      expect(replies.map((r) => Either.isRight(r) ? "ready" : r.left._tag).sort()).toEqual([
        "Conflict",
        "Conflict",
        "Conflict",
        "Conflict",
        "Conflict",
        "ready"
      ])
    }))

  it.effect("the list pages with a cursor and filters by status", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { token } = yield* employer(app)
      const client = yield* api(app, token)
      const a = yield* readyContractor(app, token, "A")
      for (const name of ["One", "Two", "Three"]) yield* client.batches.create({ payload: { name } })
      const { batchId } = yield* batchWith(app, token, [a.id], "Four")
      yield* client.batches.ready({ path: { id: batchId } })
      const first = yield* client.batches.list({ urlParams: { limit: 3 } })
      expect(first.items.map((b) => b.name)).toEqual(["Four", "Three", "Two"])
      expect(first.nextCursor).toBeDefined()
      const rest = yield* client.batches.list({ urlParams: { limit: 3, cursor: first.nextCursor! } })
      expect(rest.items.map((b) => b.name)).toEqual(["One"])
      expect(rest.nextCursor).toBeUndefined()
      const ready = yield* client.batches.list({ urlParams: { status: "ready" } })
      expect(ready.items.map((b) => b.name)).toEqual(["Four"])
    }))

  it.effect("another organization's batches, payouts and contractors are 404", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const mine = yield* employer(app, "Mine")
      const theirs = yield* employer(app, "Theirs")
      const a = yield* readyContractor(app, mine.token, "A")
      const foreign = yield* readyContractor(app, theirs.token, "Foreign")
      const { batchId, payouts } = yield* batchWith(app, mine.token, [a.id])
      const id = batchId
      const them = yield* api(app, theirs.token)
      for (const [label, request] of [
        ["GET batch", them.batches.get({ path: { id } })],
        ["GET payouts", them.batches.payouts({ path: { id }, urlParams: {} })],
        ["POST payouts", them.batches.addPayouts({ path: { id }, payload: { contractorIds: [foreign.id] } })],
        ["POST ready", them.batches.ready({ path: { id } })],
        ["DELETE payout", them.batches.removePayout({ path: { id, payoutId: payouts[0]!.id } })],
        ["DELETE batch", them.batches.remove({ path: { id } })]
      ] as const) {
        const res = yield* failure<unknown, { readonly _tag: string }, never>(request)
        expect(res._tag, label).toBe("NotFound")
        expect(res.error).toBe("batch not found")
      }
      const list = yield* them.batches.list({ urlParams: {} })
      expect(list.items).toEqual([])
      const me = yield* api(app, mine.token)
      const alien = yield* failure(me.batches.addPayouts({ path: { id }, payload: { contractorIds: [foreign.id] } }))
      expect(alien._tag).toBe("NotFound")
      expect(alien.error).toContain("contractor")
    }))

  it.effect("a batch from draft to completed, with settled, failed and retried payouts", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app, "Payroll Ltd")
      const client = yield* api(app, token)
      const [a, b, c] = [yield* readyContractor(app, token, "A"), yield* readyContractor(app, token, "B"), yield* readyContractor(app, token, "C")]
      const { batchId, payouts } = yield* batchWith(app, token, [a!.id, b!.id, c!.id])
      const id = batchId
      const payoutOf = (contractorId: ContractorId) => payouts.find((p) => p.contractorId === contractorId)!.id
      const pay = (contractor: { id: ContractorId; wallet: Keypair }, to = contractor.wallet.publicKey()) =>
        client.transfers.transfer({
          payload: { signedXDR: innerTransfer(app, wallet, { to }), payoutId: payoutOf(contractor.id) }
        })
      const batch = () => client.batches.get({ path: { id } })
      const completedAt = (done: { readonly completedAt: Option.Option<DateTime.Utc> }) =>
        DateTime.toEpochMillis(Option.getOrThrow(done.completedAt))

      const early = yield* failure(pay(a!))
      expect(early._tag).toBe("SponsorRefused")
      expect(early.error).toContain("draft")
      yield* client.batches.ready({ path: { id } })

      const paidA = yield* pay(a!)
      expect(yield* batch()).toMatchObject({ status: "started", settledCount: 1, failedCount: 0 })
      expect(Option.isSome((yield* batch()).startedAt)).toBe(true)
      const { items: listed } = yield* client.batches.payouts({ path: { id }, urlParams: {} })
      expect(listed.find((p) => p.id === payoutOf(a!.id))).toMatchObject({ status: "settled", hash: Option.some(paidA.hash) })
      expect(Option.isSome((yield* client.contractors.get({ path: { id: a!.id } })).lastPaidAt)).toBe(true)
      const twice = yield* failure(pay(a!))
      expect(twice._tag).toBe("SponsorRefused")
      expect(twice.error).toContain("settled")

      const wrongAddress = yield* failure(pay(b!, Keypair.random().publicKey()))
      expect(wrongAddress).toMatchObject({ _tag: "SponsorRefused", rule: "payout" })
      expect(wrongAddress.error).toContain("contractor address")

      app.rpc.scriptSend({ kind: "failOnApply" })
      const failedB = yield* failure(pay(b!))
      expect(failedB._tag).toBe("TransferRejected")
      expect(yield* batch()).toMatchObject({ status: "started", settledCount: 1, failedCount: 1 })
      yield* pay(b!)
      expect(yield* batch()).toMatchObject({ status: "started", settledCount: 2, failedCount: 0 })

      app.rpc.scriptSend({ kind: "failOnApply" })
      expect((yield* failure(pay(c!)))._tag).toBe("TransferRejected")
      const done = yield* batch()
      expect(done).toMatchObject({ status: "completed", payoutCount: 3, settledCount: 2, failedCount: 1 })
      expect(Option.isSome(done.completedAt)).toBe(true)
      const statuses = (yield* client.batches.payouts({ path: { id }, urlParams: {} })).items.map((p) => p.status).sort()
      expect(statuses).toEqual(["failed", "settled", "settled"])
      const settledA = yield* failure(pay(a!))
      expect(settledA._tag).toBe("SponsorRefused")
      expect(settledA.error).toContain("settled")

      // A failed payout can still be paid once its batch completed: the batch re-opens and completes again.
      yield* pay(c!)
      const again = yield* batch()
      expect(again).toMatchObject({ status: "completed", payoutCount: 3, settledCount: 3, failedCount: 0 })
      expect(completedAt(again)).toBeGreaterThan(completedAt(done))
      const allSettled = (yield* client.batches.payouts({ path: { id }, urlParams: {} })).items.map((p) => p.status)
      expect(allSettled).toEqual(["settled", "settled", "settled"])

      const contractor = yield* api(app, yield* signIn(app, a!.wallet))
      const portal = yield* contractor.contractorPortal.payouts({ urlParams: {} })
      expect(portal.items).toHaveLength(1)
      expect(portal.nextCursor).toBeUndefined()
      expect(portal.items[0]).toMatchObject({ company: "Payroll Ltd", batchName: "November", status: "settled", hash: Option.some(paidA.hash) })
      const stranger = yield* api(app, yield* signIn(app))
      expect((yield* stranger.contractorPortal.payouts({ urlParams: {} })).items).toEqual([])
    }))
})
