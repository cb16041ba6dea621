import { Clock, Effect, Option } from "effect"
import type { Actor } from "../Domain/Actor.ts"
import type { Batch, BatchStatus } from "../Domain/Batch.ts"
import { Conflict, notFound } from "../Domain/Errors.ts"
import type { BatchId, PayoutId } from "../Domain/Ids.ts"
import { allows, BatchMachine } from "../Domain/StateMachines.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { Outbox } from "../Sql/Outbox.ts"
import { BatchRepo } from "./BatchRepo.ts"
import { ControlRepo } from "./ControlRepo.ts"
import { approvesAmounts, mayApprove } from "./Policy.ts"
import * as Spans from "../Observability/Spans.ts"

/** A move the batch machine does not allow from where the batch is: 409 naming its state. */
const illegal = (status: BatchStatus, what: string) => new Conflict({ error: `the batch is ${status}; it cannot be ${what}` })

/**
 * The payroll controls on a batch (issue 22 §2, §3): approve and reject (maker-checker), pause and resume, cancel it
 * or one payout. Each is one transaction: the batch locked, the move guarded by the batch machine, its audit rows
 * and its webhook events written with it.
 */
export class BatchControls extends Effect.Service<BatchControls>()("Batches/BatchControls", {
  effect: Effect.gen(function*() {
    const batches = yield* BatchRepo
    const repo = yield* ControlRepo
    const audit = yield* AuditTrail
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Runs `f` on the locked batch in one transaction: 404 when the organization has no such batch. */
    const onBatch = <A, E, R>(actor: Actor, id: BatchId, f: (batch: Batch) => Effect.Effect<A, E, R>) =>
      batches.transaction(Effect.gen(function*() {
        const locked = yield* repo.lock(actor.orgId, id)
        if (Option.isNone(locked)) return yield* notFound("batch")
        return yield* f(locked.value)
      }))

    const after = <A>(moved: Option.Option<A>, status: BatchStatus, what: string) =>
      Option.match(moved, { onNone: () => Effect.fail(illegal(status, what)), onSome: Effect.succeed })

    const record = (actor: Actor, action: string, id: string, from: string | null, to: string | null, type = "batch") =>
      audit.append({ orgId: actor.orgId, actor: actor.audit, action, subject: { type, id }, from, to })

    const emit = (actor: Actor, type: string, data: Record<string, unknown>) => outbox.emit({ orgId: actor.orgId, type, data })

    const approve = Spans.fn("BatchControls.approve")(function*(actor: Actor, id: BatchId, digest: string | undefined) {
      return yield* onBatch(actor, id, (batch) =>
        Effect.gen(function*() {
          if (batch.status !== "ready") return yield* illegal(batch.status, "approved (only a ready batch is)")
          yield* mayApprove(actor, batch)
          yield* approvesAmounts(batch, digest)
          const at = yield* now
          if (!(yield* repo.approve(id, actor.sub, at, Option.getOrNull(batch.sealedAmountsDigest)))) return yield* new Conflict({ error: "you have already approved this batch" })
          yield* record(actor, "batch.approved", id, null, null)
          yield* emit(actor, "batch.approved", { batchId: id, by: actor.sub, approvedAt: at })
          return yield* Effect.flatMap(repo.lock(actor.orgId, id), Option.match({ onNone: () => notFound("batch"), onSome: Effect.succeed }))
        }))
    })

    const reject = Spans.fn("BatchControls.reject")(function*(actor: Actor, id: BatchId, reason: string) {
      return yield* onBatch(actor, id, (batch) =>
        Effect.gen(function*() {
          if (batch.status !== "ready") return yield* illegal(batch.status, "rejected (only a ready batch is)")
          const moved = yield* after(yield* repo.reject(id, yield* now), batch.status, "rejected")
          yield* record(actor, "batch.rejected", id, "ready", "draft")
          yield* emit(actor, "batch.rejected", { batchId: id, by: actor.sub, reason })
          return moved
        }))
    })

    const pause = Spans.fn("BatchControls.pause")(function*(actor: Actor, id: BatchId) {
      return yield* onBatch(actor, id, (batch) =>
        Effect.gen(function*() {
          if (!allows(BatchMachine, batch.status, "paused") || Option.isSome(batch.cancelRequestedAt)) {
            return yield* illegal(batch.status, "paused")
          }
          const moved = yield* after(yield* repo.pause(id), batch.status, "paused")
          yield* record(actor, "batch.paused", id, batch.status, "paused")
          yield* emit(actor, "batch.paused", { batchId: id, by: actor.sub })
          return moved
        }))
    })

    const resume = Spans.fn("BatchControls.resume")(function*(actor: Actor, id: BatchId) {
      return yield* onBatch(actor, id, (batch) =>
        Effect.gen(function*() {
          if (batch.status !== "paused") return yield* illegal(batch.status, "resumed (only a paused batch is)")
          const moved = yield* after(yield* repo.resume(id), batch.status, "resumed")
          yield* record(actor, "batch.resumed", id, "paused", moved.status)
          yield* emit(actor, "batch.resumed", { batchId: id, by: actor.sub })
          return moved
        }))
    })

    /** Cancels unsent payouts (all of the batch's, or `only`), with their audit rows and events, and the batch's. */
    const cancelWith = (actor: Actor, batch: Batch, only: PayoutId | null) =>
      Effect.gen(function*() {
        const at = yield* now
        const { batch: after, canceled } = yield* repo.cancel(batch.id, only, at)
        yield* audit.appendAll(canceled.map((p) => ({
          orgId: actor.orgId,
          actor: actor.audit,
          action: "payout.canceled",
          subject: { type: "payout", id: p.id },
          from: p.previous,
          to: "canceled"
        })))
        for (const p of canceled) {
          yield* emit(actor, "payout.canceled", { payoutId: p.id, batchId: batch.id, contractorId: p.contractorId, canceledAt: at })
        }
        const moved = Option.getOrElse(after, () => batch)
        if (only === null) yield* record(actor, "batch.cancel_requested", batch.id, batch.status, null)
        if (moved.status !== batch.status) {
          yield* record(actor, `batch.${moved.status}`, batch.id, batch.status, moved.status)
          yield* emit(actor, `batch.${moved.status}`, {
            batchId: batch.id,
            name: moved.name,
            payoutCount: moved.payoutCount,
            settledCount: moved.settledCount,
            failedCount: moved.failedCount,
            canceledCount: moved.canceledCount
          })
        }
        return { batch: moved, canceled }
      })

    const cancel = Spans.fn("BatchControls.cancel")(function*(actor: Actor, id: BatchId) {
      return yield* onBatch(actor, id, (batch) =>
        Effect.gen(function*() {
          if (!allows(BatchMachine, batch.status, "canceled") || Option.isSome(batch.cancelRequestedAt)) {
            return yield* illegal(batch.status, Option.isSome(batch.cancelRequestedAt) ? "canceled again" : "canceled")
          }
          return (yield* cancelWith(actor, batch, null)).batch
        }))
    })

    const cancelPayout = Spans.fn("BatchControls.cancelPayout")(function*(actor: Actor, id: BatchId, payoutId: PayoutId) {
      return yield* onBatch(actor, id, (batch) =>
        Effect.gen(function*() {
          const { canceled } = yield* cancelWith(actor, batch, payoutId)
          if (canceled.length === 1) return
          const status = yield* repo.payoutStatus(id, payoutId)
          if (Option.isNone(status)) return yield* notFound("payout")
          return yield* new Conflict({ error: `the payout is ${status.value}; only a draft, ready or failed payout can be canceled` })
        }))
    })

    return { approve, reject, pause, resume, cancel, cancelPayout } as const
  }),
  dependencies: [BatchRepo.Default, ControlRepo.Default, AuditTrail.Default, Outbox.Default]
}) {}
