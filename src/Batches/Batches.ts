import { Clock, Effect, Option } from "effect"
import { ContractorRepo } from "../Contractors/ContractorRepo.ts"
import type { Actor } from "../Domain/Actor.ts"
import type { ListBatchesParams, ListPayoutsParams } from "../Domain/Batch.ts"
import { Conflict, notFound } from "../Domain/Errors.ts"
import type { BatchId, ContractorId, OrgId, PayoutId } from "../Domain/Ids.ts"
import { decodeCursor, toPage } from "../Http/Cursor.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { BatchRepo } from "./BatchRepo.ts"
import * as Spans from "../Observability/Spans.ts"

const notDraft = (status: string) => new Conflict({ error: `the batch is ${status}; only a draft batch can change` })

/** An organization's payroll batches and the payouts in them. No amount is stored anywhere here. */
export class Batches extends Effect.Service<Batches>()("Batches/Batches", {
  effect: Effect.gen(function*() {
    const repo = yield* BatchRepo
    const contractors = yield* ContractorRepo
    const audit = yield* AuditTrail
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const find = (orgId: OrgId, id: BatchId) =>
      repo.find(orgId, id).pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.fail(notFound("batch")),
        onSome: Effect.succeed
      })))

    const record = (actor: Actor, action: string, subject: { type: string; id: string }, from?: string, to?: string) =>
      audit.append({ orgId: actor.orgId, actor: actor.audit, action, subject, from: from ?? null, to: to ?? null })

    const create = Spans.fn("Batches.create")(function*(actor: Actor, name: string) {
      return yield* repo.transaction(Effect.gen(function*() {
        const batch = yield* repo.create(actor.orgId, name, actor.sub)
        yield* record(actor, "batch.created", { type: "batch", id: batch.id }, undefined, "draft")
        return batch
      }))
    })

    const list = Spans.fn("Batches.list")(function*(orgId: OrgId, params: typeof ListBatchesParams.Type) {
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      const limit = params.limit ?? 50
      const rows = yield* repo.list(orgId, { limit, after, status: Option.fromNullable(params.status) })
      return toPage(rows, limit, (batch) => batch)
    })

    const get = (orgId: OrgId, id: BatchId) => find(orgId, id).pipe(Spans.withSpan("Batches.get"))

    const ready = Spans.fn("Batches.ready")(function*(actor: Actor, id: BatchId) {
      const moved = yield* repo.transaction(Effect.gen(function*() {
        const moved = yield* repo.ready(actor.orgId, id, actor.sub, yield* now)
        if (Option.isSome(moved)) yield* record(actor, "batch.readied", { type: "batch", id }, "draft", "ready")
        return moved
      }))
      if (Option.isSome(moved)) return moved.value
      const current = yield* find(actor.orgId, id)
      if (current.status !== "draft") return yield* new Conflict({ error: `the batch is ${current.status}, not draft` })
      return yield* new Conflict({ error: "a batch needs at least one payout to be readied" })
    })

    const remove = Spans.fn("Batches.remove")(function*(actor: Actor, id: BatchId) {
      const removed = yield* repo.transaction(Effect.gen(function*() {
        const removed = yield* repo.remove(actor.orgId, id)
        if (removed) yield* record(actor, "batch.deleted", { type: "batch", id }, "draft")
        return removed
      }))
      if (removed) return
      const current = yield* find(actor.orgId, id)
      return yield* notDraft(current.status)
    })

    /** Locks the batch for a change of its payouts: 404 when it does not exist, 409 when it is no longer a draft. */
    const lockDraft = (orgId: OrgId, id: BatchId) =>
      Effect.gen(function*() {
        const locked = yield* repo.lock(orgId, id)
        if (Option.isNone(locked)) return yield* notFound("batch")
        if (locked.value.status !== "draft") return yield* notDraft(locked.value.status)
      })

    const addPayouts = Spans.fn("Batches.addPayouts")(function*(actor: Actor, id: BatchId, contractorIds: ReadonlyArray<ContractorId>) {
      const orgId = actor.orgId
      const unique = [...new Set(contractorIds)]
      if (unique.length !== contractorIds.length) {
        return yield* new Conflict({ error: "a contractor can be paid once per batch" })
      }
      return yield* repo.transaction(Effect.gen(function*() {
        yield* lockDraft(orgId, id)
        const found = yield* contractors.statuses(orgId, unique)
        const missing = unique.find((c) => !found.some((f) => f.id === c))
        if (missing !== undefined) return yield* notFound(`contractor ${missing}`)
        const notReady = found.find((c) => c.status !== "ready")
        if (notReady !== undefined) {
          return yield* new Conflict({ error: `contractor ${notReady.id} is ${notReady.status}; only ready contractors can be paid` })
        }
        const already = yield* repo.inBatch(id, unique)
        if (already.length > 0) {
          return yield* new Conflict({ error: `contractor ${already[0]!.contractorId} is already in this batch` })
        }
        const added = yield* repo.addPayouts(orgId, id, unique)
        yield* audit.appendAll(added.map((p) => ({
          orgId,
          actor: actor.audit,
          action: "batch.payout_added",
          subject: { type: "payout", id: p.id },
          to: "draft"
        })))
        return added
      }))
    })

    const payouts = Spans.fn("Batches.payouts")(function*(orgId: OrgId, id: BatchId, params: typeof ListPayoutsParams.Type = {}) {
      yield* find(orgId, id)
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      const limit = params.limit ?? 50
      return toPage(yield* repo.payouts(id, { limit, after }), limit, (payout) => payout)
    })

    const removePayout = Spans.fn("Batches.removePayout")(function*(actor: Actor, id: BatchId, payoutId: PayoutId) {
      return yield* repo.transaction(Effect.gen(function*() {
        yield* lockDraft(actor.orgId, id)
        if (!(yield* repo.removePayout(id, payoutId))) return yield* notFound("payout")
        yield* record(actor, "batch.payout_removed", { type: "payout", id: payoutId }, "draft")
      }))
    })

    return { create, list, get, ready, remove, addPayouts, payouts, removePayout } as const
  }),
  dependencies: [BatchRepo.Default, ContractorRepo.Default, AuditTrail.Default]
}) {}
