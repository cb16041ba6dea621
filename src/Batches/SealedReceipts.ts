import { Clock, DateTime, Effect, Option, Schema } from "effect"
import type { Actor } from "../Domain/Actor.ts"
import type { PayoutStatus } from "../Domain/Batch.ts"
import { Conflict, Forbidden, notFound } from "../Domain/Errors.ts"
import type { BatchId, PayoutId } from "../Domain/Ids.ts"
import { SealedEnvelope } from "../Domain/SealedAmounts.ts"
import { type ListSealedReceiptsParams, SealedReceipt } from "../Domain/SealedReceipts.ts"
import { decodeCursor, toPage } from "../Http/Cursor.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { BatchRepo } from "./BatchRepo.ts"
import { batchPolicy } from "./Policy.ts"
import { SealedAmountsRepo } from "./SealedAmountsRepo.ts"
import { SealedReceiptsRepo } from "./SealedReceiptsRepo.ts"
import { checkRecipients } from "./SealedRecipients.ts"
import { sealedDigest, sharedFrom } from "./Sealing.ts"
import * as Spans from "../Observability/Spans.ts"

/** A payout of a readied batch, not canceled: one a transfer may pay (ready, failed) or paid (submitted, settled). */
const HOLDS_A_RECEIPT: ReadonlySet<PayoutStatus> = new Set(["ready", "submitted", "settled", "failed"])
/**
 * A payout with no transfer in flight or landed: a receipt on file is of a proof that was never sent, or of a transfer
 * that failed, and the next transfer brings a new one (another r_e, another σ).
 */
const NO_TRANSFER_STANDS: ReadonlySet<PayoutStatus> = new Set(["ready", "failed"])

const encodeEnvelope = Schema.encodeSync(SealedEnvelope)
const sameEnvelope = (a: SealedEnvelope, b: SealedEnvelope) => JSON.stringify(encodeEnvelope(a)) === JSON.stringify(encodeEnvelope(b))

/**
 * Payouts' sealed receipts (issue 31 §2): each sent payout's amount, ephemeral secret r_e and randomness σ, sealed in
 * the payer's browser to the members who may read amounts, so that a reader's browser reconciles the transfer's
 * on-chain ciphertext with the approved amount. Stored opaque, each recipient a current reader with a sealing key
 * (as for a batch's sealed amounts). A new receipt is the payer's (`transfers:submit`), for a payout of a readied
 * batch that was not canceled; once the payout's transfer is in flight or landed (submitted, settled), the receipt on
 * file stays: only the same receipt (the same digest) may be shared with more members, by any reader, a share only
 * adding recipients (issue 35 §4: SealedRecipients.ts).
 */
export class SealedReceipts extends Effect.Service<SealedReceipts>()("Batches/SealedReceipts", {
  effect: Effect.gen(function*() {
    const batches = yield* BatchRepo
    const repo = yield* SealedReceiptsRepo
    const readers = yield* SealedAmountsRepo
    const audit = yield* AuditTrail

    const batchOf = (actor: Actor, id: BatchId) =>
      Effect.flatMap(batches.find(actor.orgId, id), Option.match({ onNone: () => notFound("batch"), onSome: Effect.succeed }))

    const put = Spans.fn("SealedReceipts.put")(function*(actor: Actor, id: BatchId, payoutId: PayoutId, envelope: SealedEnvelope) {
      const digest = sealedDigest(envelope)
      return yield* batches.transaction(Effect.gen(function*() {
        yield* batchOf(actor, id)
        const status = yield* repo.lockPayout(actor.orgId, id, payoutId)
        if (Option.isNone(status)) return yield* notFound("payout")
        if (!HOLDS_A_RECEIPT.has(status.value)) {
          return yield* new Conflict({
            error: `the payout is ${status.value}; a receipt is kept only for a payout of a readied batch that was not canceled`
          })
        }
        const previous = yield* repo.lock(id, payoutId)
        const sharedEnvelope = sharedFrom(previous, digest)
        const shared = sharedEnvelope !== undefined
        if (Option.isSome(previous) && shared && sameEnvelope(sharedEnvelope, envelope)) return previous.value
        if (!shared) {
          if (!actor.permissions.includes(batchPolicy.pay)) {
            return yield* new Forbidden({
              error: `a new receipt needs the permission ${batchPolicy.pay}, which the role ${actor.role} does not grant ` +
                "(the same receipt may be shared with more members)"
            })
          }
          if (Option.isSome(previous) && !NO_TRANSFER_STANDS.has(status.value)) {
            return yield* new Conflict({
              error: `the payout is ${status.value}: its transfer was sent with the receipt on file, which stays (only the ` +
                "same receipt may be shared with more members)"
            })
          }
        }
        yield* checkRecipients(readers.readers, actor.orgId, envelope, sharedEnvelope)
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* repo.store(id, payoutId, envelope, digest, at, actor.sub)
        yield* audit.append({
          orgId: actor.orgId,
          actor: actor.audit,
          action: shared ? "payout.receipt_shared" : "payout.receipt_sealed",
          subject: { type: "payout", id: payoutId },
          from: Option.getOrNull(Option.map(previous, (p) => p.digest)),
          to: digest
        })
        return new SealedReceipt({ payoutId, envelope, digest, updatedAt: DateTime.unsafeFromDate(at), updatedBy: actor.sub })
      }))
    })

    const get = Spans.fn("SealedReceipts.get")(function*(actor: Actor, id: BatchId, payoutId: PayoutId) {
      yield* batchOf(actor, id)
      return yield* Effect.flatMap(repo.find(id, payoutId), Option.match({ onNone: () => notFound("sealed receipt"), onSome: Effect.succeed }))
    })

    const list = Spans.fn("SealedReceipts.list")(function*(actor: Actor, id: BatchId, params: typeof ListSealedReceiptsParams.Type) {
      yield* batchOf(actor, id)
      const after = params.cursor === undefined ? Option.none() : Option.some(yield* decodeCursor(params.cursor))
      const limit = params.limit ?? 50
      return toPage(yield* repo.page(id, { limit, after }), limit, (row) => row.receipt)
    })

    return { put, get, list } as const
  }),
  dependencies: [BatchRepo.Default, SealedReceiptsRepo.Default, SealedAmountsRepo.Default, AuditTrail.Default]
}) {}
