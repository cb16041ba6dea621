import { describe, expect, it } from "@effect/vitest"
import { Keypair } from "@stellar/stellar-sdk"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { BatchRepo } from "../../src/Batches/BatchRepo.ts"
import { PayoutLink } from "../../src/Batches/PayoutLink.ts"
import { type BatchId, PayoutId } from "../../src/Domain/Ids.ts"
import { StellarAddress } from "../../src/Domain/Stellar.ts"
import { PayrollTables, payrollReposOn } from "../support/BatchRepoTest.ts"
import { Contractor } from "../../src/Domain/Contractor.ts"
import type { AuditEntry } from "../../src/Sql/AuditTrail.ts"
import { auditTrailOn } from "../support/AuditTrailTest.ts"

const tables = new PayrollTables()
const audited: Array<AuditEntry> = []

const at = (s: number) => new Date(s * 1000)

/** Why `effect` failed, as `Tag: error`. */
const refusal = <A, R>(effect: Effect.Effect<A, { readonly _tag: string; readonly error: string }, R>) =>
  Effect.map(Effect.flip(effect), (e) => `${e._tag}: ${e.error}`)

/** An organization's batch of `n` payouts to ready contractors, readied as `POST /batches/{id}/ready` does. */
const readyBatch = (n: number) =>
  Effect.gen(function*() {
    const repo = yield* BatchRepo
    const orgId = tables.org()
    const contractors = Array.from({ length: n }, (_, i) => tables.contractors.add(orgId, { name: `C${i}` }))
    const batch = yield* repo.create(orgId, "November", "GCREATOR")
    const payouts = yield* repo.addPayouts(orgId, batch.id, contractors.map((c) => c.id))
    yield* repo.ready(orgId, batch.id, "GREADIER", at(1))
    return {
      orgId,
      batchId: batch.id,
      payouts: payouts.map((p, i) => ({ id: p.id, contractorId: p.contractorId, to: StellarAddress.make(Option.getOrThrow(contractors[i]!.address)) }))
    }
  })

/** markSubmitted as the transfer records it: inside the submission's transaction. */
const submit = (payoutId: PayoutId, hash: string, time: Date) =>
  Effect.flatMap(Effect.all([BatchRepo, PayoutLink]), ([repo, link]) => repo.transaction(link.markSubmitted(payoutId, hash, time, { type: "member", id: "GPAYER" })))

const settle = (payoutId: PayoutId, time: Date, error?: string) =>
  Effect.flatMap(PayoutLink, (link) => link.markFinal(payoutId, error === undefined ? { settled: true } : { settled: false, error }, time))

/** The batch's state and counters, as GET /batches/{id} shows them. */
const counters = (batchId: BatchId) => {
  const { status, payoutCount, settledCount, failedCount, startedAt, completedAt } = tables.batch(batchId) ?? {}
  return { status, payoutCount, settledCount, failedCount, startedAt, completedAt }
}

describe("PayoutLink", () => {
  it.layer(PayoutLink.DefaultWithoutDependencies.pipe(Layer.provideMerge(Layer.merge(payrollReposOn(tables), auditTrailOn(audited)))))("state machine", (it) => {
    it.effect("check: a ready payout of a ready batch may be paid to its contractor's address, and to no one else", () =>
      Effect.gen(function*() {
        const link = yield* PayoutLink
        const { orgId, payouts: [p] } = yield* readyBatch(1)
        yield* link.check(orgId, p!.id, p!.to)
        expect(yield* refusal(link.check(orgId, p!.id, StellarAddress.make(Keypair.random().publicKey()))))
          .toBe("SponsorRefused: the transfer's recipient (to) is not the payout's contractor address")
        tables.contractors.rows.set(p!.contractorId, Contractor.make({ ...tables.contractors.rows.get(p!.contractorId)!, address: Option.none() }))
        expect(yield* refusal(link.check(orgId, p!.id, p!.to)))
          .toBe("SponsorRefused: the transfer's recipient (to) is not the payout's contractor address")
      }))

    it.effect("check: an unknown payout, or another organization's, is not found", () =>
      Effect.gen(function*() {
        const link = yield* PayoutLink
        const { payouts: [p] } = yield* readyBatch(1)
        expect(yield* refusal(link.check(tables.org(), p!.id, p!.to))).toBe("NotFound: payout not found")
        expect(yield* refusal(link.check(tables.org(), PayoutId.make(randomUUID()), p!.to))).toBe("NotFound: payout not found")
      }))

    it.effect("check: only a ready or failed payout, only from a ready or started batch", () =>
      Effect.gen(function*() {
        const repo = yield* BatchRepo
        const link = yield* PayoutLink
        const orgId = tables.org()
        const contractor = tables.contractors.add(orgId)
        const draft = yield* repo.create(orgId, "Draft", "GCREATOR")
        const [inDraft] = yield* repo.addPayouts(orgId, draft.id, [contractor.id])
        expect(yield* refusal(link.check(orgId, inDraft!.id, StellarAddress.make(Option.getOrThrow(contractor.address)))))
          .toBe("SponsorRefused: the payout is draft")

        const { orgId: org, batchId, payouts: [a, b, c] } = yield* readyBatch(3)
        yield* submit(a!.id, "hash-a", at(2))
        expect(yield* refusal(link.check(org, a!.id, a!.to))).toBe("SponsorRefused: the payout is submitted")
        yield* settle(a!.id, at(3))
        expect(yield* refusal(link.check(org, a!.id, a!.to))).toBe("SponsorRefused: the payout is settled")
        yield* link.check(org, b!.id, b!.to)

        // A ready payout in a batch that is neither ready nor started (a state no API call leads to) is refused too.
        tables.setBatch(batchId, { status: "completed" })
        expect(yield* refusal(link.check(org, c!.id, c!.to)))
          .toBe("SponsorRefused: the payout's batch is completed; payouts are paid from a ready or started batch")
      }))

    it.effect("markSubmitted: ready → submitted and the batch ready → started, stamped once; a second submission is refused", () =>
      Effect.gen(function*() {
        const { batchId, payouts: [a, b] } = yield* readyBatch(2)
        yield* submit(a!.id, "hash-a", at(10))
        expect(tables.payout(a!.id)).toMatchObject({ status: "submitted", hash: "hash-a", error: null, updatedAt: at(10) })
        expect(counters(batchId)).toMatchObject({ status: "started", startedAt: at(10), completedAt: null })
        yield* submit(b!.id, "hash-b", at(20))
        expect(counters(batchId)).toMatchObject({ status: "started", startedAt: at(10) })

        expect(yield* refusal(submit(a!.id, "hash-a2", at(30)))).toBe("SponsorRefused: the payout is no longer ready")
        expect(tables.payout(a!.id)).toMatchObject({ status: "submitted", hash: "hash-a", updatedAt: at(10) })
      }))

    it.effect("markSubmitted into a batch that is no longer open is refused, and its transaction leaves the payout ready", () =>
      Effect.gen(function*() {
        const { batchId, payouts: [a] } = yield* readyBatch(1)
        tables.setBatch(batchId, { status: "completed" })
        expect(yield* refusal(submit(a!.id, "hash-a", at(10)))).toBe("SponsorRefused: the payout's batch is no longer open")
        expect(tables.payout(a!.id)).toMatchObject({ status: "ready", hash: null })
        expect(counters(batchId)).toMatchObject({ status: "completed", startedAt: null })
      }))

    it.effect("markFinal: settled pays the contractor, failed keeps the error and pays no one; the last one completes the batch", () =>
      Effect.gen(function*() {
        const { batchId, payouts } = yield* readyBatch(3)
        const [a, b, c] = payouts
        for (const p of payouts) yield* submit(p.id, `hash-${p.id}`, at(10))

        yield* settle(a!.id, at(20))
        expect(tables.payout(a!.id)).toMatchObject({ status: "settled", error: null, updatedAt: at(20) })
        expect(Option.flatMap(tables.contractors.find(a!.contractorId), (r) => r.lastPaidAt).pipe(Option.map((t) => t.epochMillis)))
          .toEqual(Option.some(20_000))
        expect(counters(batchId)).toMatchObject({ status: "started", settledCount: 1, failedCount: 0, completedAt: null })

        yield* settle(b!.id, at(21), "txFailed")
        expect(tables.payout(b!.id)).toMatchObject({ status: "failed", error: "txFailed" })
        expect(Option.isNone(tables.contractors.rows.get(b!.contractorId)!.lastPaidAt)).toBe(true)
        expect(counters(batchId)).toMatchObject({ status: "started", settledCount: 1, failedCount: 1, completedAt: null })

        yield* settle(c!.id, at(22))
        expect(counters(batchId)).toEqual({
          status: "completed",
          payoutCount: 3,
          settledCount: 2,
          failedCount: 1,
          startedAt: at(10),
          completedAt: at(22)
        })
      }))

    it.effect("markFinal of a payout that is not submitted (never sent, or already final) changes nothing", () =>
      Effect.gen(function*() {
        const { batchId, payouts: [a, b] } = yield* readyBatch(2)
        yield* settle(a!.id, at(5))
        expect(tables.payout(a!.id)?.status).toBe("ready")
        yield* submit(a!.id, "hash-a", at(10))
        yield* settle(a!.id, at(20))
        const once = counters(batchId)
        yield* settle(a!.id, at(30))
        yield* settle(a!.id, at(31), "txFailed")
        expect(counters(batchId)).toEqual(once)
        expect(tables.payout(a!.id)).toMatchObject({ status: "settled", updatedAt: at(20) })
        expect(Option.map(tables.contractors.rows.get(a!.contractorId)!.lastPaidAt, (t) => t.epochMillis)).toEqual(Option.some(at(20).getTime()))
        expect(tables.payout(b!.id)?.status).toBe("ready")
      }))

    it.effect("a failed payout is paid again after its batch completed: the batch re-opens, no longer counts it failed, completes again", () =>
      Effect.gen(function*() {
        const link = yield* PayoutLink
        const { orgId, batchId, payouts: [a, b] } = yield* readyBatch(2)
        yield* submit(a!.id, "hash-a", at(10))
        yield* submit(b!.id, "hash-b", at(10))
        yield* settle(a!.id, at(20))
        yield* settle(b!.id, at(21), "txTooLate")
        expect(counters(batchId)).toMatchObject({ status: "completed", settledCount: 1, failedCount: 1, completedAt: at(21) })

        yield* link.check(orgId, b!.id, b!.to)
        yield* submit(b!.id, "hash-b2", at(30))
        expect(tables.payout(b!.id)).toMatchObject({ status: "submitted", hash: "hash-b2", error: null })
        expect(counters(batchId)).toMatchObject({
          status: "started",
          settledCount: 1,
          failedCount: 0,
          startedAt: at(10),
          completedAt: null
        })

        yield* settle(b!.id, at(40))
        expect(counters(batchId)).toMatchObject({ status: "completed", settledCount: 2, failedCount: 0, completedAt: at(40) })
        // A settled payout of a completed batch is not paid twice.
        expect(yield* refusal(link.check(orgId, a!.id, a!.to))).toBe("SponsorRefused: the payout is settled")
      }))

    it.effect("counters over many payouts, finished in any order, sum to the payouts and complete the batch at the last one", () =>
      Effect.gen(function*() {
        const { batchId, payouts } = yield* readyBatch(40)
        for (const p of payouts) yield* submit(p.id, `hash-${p.id}`, at(10))
        const order = payouts.map((p, i) => ({ p, i })).sort((x, y) => ((x.i * 17) % 40) - ((y.i * 17) % 40))
        for (const [k, { p, i }] of order.entries()) {
          expect((counters(batchId))?.status).toBe("started")
          yield* settle(p.id, at(100 + k), i % 3 === 0 ? "txFailed" : undefined)
        }
        expect(counters(batchId)).toMatchObject({
          status: "completed",
          payoutCount: 40,
          settledCount: 26,
          failedCount: 14,
          completedAt: at(139)
        })
        const paid = payouts.filter((p) => Option.isSome(Option.flatMap(tables.contractors.find(p.contractorId), (r) => r.lastPaidAt)))
        expect(paid.length).toBe(26)
      }))
  })
})
