import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { Batches } from "../../src/Batches/Batches.ts"
import { ContractorId, PayoutId } from "../../src/Domain/Ids.ts"
import { PayrollTables, payrollReposOn } from "../support/BatchRepoTest.ts"
import { actorOf, auditTrailOn } from "../support/AuditTrailTest.ts"
import type { AuditEntry } from "../../src/Sql/AuditTrail.ts"

const tables = new PayrollTables()
const audited: Array<AuditEntry> = []

const refusal = <A, R>(effect: Effect.Effect<A, { readonly _tag: string; readonly error: string }, R>) =>
  Effect.map(Effect.flip(effect), (e) => `${e._tag}: ${e.error}`)

describe("Batches", () => {
  it.layer(Batches.DefaultWithoutDependencies.pipe(Layer.provide(Layer.merge(payrollReposOn(tables), auditTrailOn(audited)))))("draft rules", (it) => {
    it.effect("only ready contractors of the organization, each once per batch; a refused add adds nothing", () =>
      Effect.gen(function*() {
        const batches = yield* Batches
        const orgId = tables.org()
        const [a, b] = [tables.contractors.add(orgId), tables.contractors.add(orgId)]
        const invited = tables.contractors.add(orgId, { status: "invited" })
        const stranger = tables.contractors.add(tables.org())
        const batch = yield* batches.create(actorOf(orgId), "November")

        expect(yield* refusal(batches.addPayouts(actorOf(orgId), batch.id, [a.id, a.id]))).toBe("Conflict: a contractor can be paid once per batch")
        expect(yield* refusal(batches.addPayouts(actorOf(orgId), batch.id, [a.id, stranger.id]))).toBe(`NotFound: contractor ${stranger.id} not found`)
        const unknown = ContractorId.make(randomUUID())
        expect(yield* refusal(batches.addPayouts(actorOf(orgId), batch.id, [unknown]))).toBe(`NotFound: contractor ${unknown} not found`)
        expect(yield* refusal(batches.addPayouts(actorOf(orgId), batch.id, [a.id, invited.id])))
          .toBe(`Conflict: contractor ${invited.id} is invited; only ready contractors can be paid`)
        expect(tables.batch(batch.id)?.payoutCount).toBe(0)

        expect((yield* batches.addPayouts(actorOf(orgId), batch.id, [a.id])).map((p) => p.status)).toEqual(["draft"])
        expect(yield* refusal(batches.addPayouts(actorOf(orgId), batch.id, [b.id, a.id]))).toBe(`Conflict: contractor ${a.id} is already in this batch`)
        yield* batches.addPayouts(actorOf(orgId), batch.id, [b.id])
        expect((yield* batches.get(orgId, batch.id)).payoutCount).toBe(2)
        expect(yield* refusal(batches.get(tables.org(), batch.id))).toBe("NotFound: batch not found")
      }))

    it.effect("ready needs a payout and a draft; once ready the batch and its payouts no longer change", () =>
      Effect.gen(function*() {
        const batches = yield* Batches
        const orgId = tables.org()
        const contractor = tables.contractors.add(orgId)
        const batch = yield* batches.create(actorOf(orgId), "December")
        expect(yield* refusal(batches.ready(actorOf(orgId), batch.id))).toBe("Conflict: a batch needs at least one payout to be readied")
        const [payout] = yield* batches.addPayouts(actorOf(orgId), batch.id, [contractor.id])

        expect((yield* batches.ready(actorOf(orgId), batch.id)).status).toBe("ready")
        expect((yield* batches.payouts(orgId, batch.id)).items.map((p) => p.status)).toEqual(["ready"])
        expect(yield* refusal(batches.ready(actorOf(orgId), batch.id))).toBe("Conflict: the batch is ready, not draft")
        expect(yield* refusal(batches.addPayouts(actorOf(orgId), batch.id, [tables.contractors.add(orgId).id])))
          .toBe("Conflict: the batch is ready; only a draft batch can change")
        expect(yield* refusal(batches.removePayout(actorOf(orgId), batch.id, payout!.id))).toBe("Conflict: the batch is ready; only a draft batch can change")
        expect(yield* refusal(batches.remove(actorOf(orgId), batch.id))).toBe("Conflict: the batch is ready; only a draft batch can change")
      }))

    it.effect("a draft loses payouts and can be deleted, with them", () =>
      Effect.gen(function*() {
        const batches = yield* Batches
        const orgId = tables.org()
        const batch = yield* batches.create(actorOf(orgId), "January")
        const [first, second] = yield* batches.addPayouts(actorOf(orgId), batch.id, [tables.contractors.add(orgId).id, tables.contractors.add(orgId).id])
        yield* batches.removePayout(actorOf(orgId), batch.id, first!.id)
        expect(yield* refusal(batches.removePayout(actorOf(orgId), batch.id, first!.id))).toBe("NotFound: payout not found")
        expect(yield* refusal(batches.removePayout(actorOf(orgId), batch.id, PayoutId.make(randomUUID())))).toBe("NotFound: payout not found")
        expect((yield* batches.get(orgId, batch.id)).payoutCount).toBe(1)
        yield* batches.remove(actorOf(orgId), batch.id)
        expect(yield* refusal(batches.get(orgId, batch.id))).toBe("NotFound: batch not found")
        expect(tables.payout(second!.id)).toBeUndefined()
      }))
  })
})
