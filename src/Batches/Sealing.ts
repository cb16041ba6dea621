import { Clock, DateTime, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import type { Actor } from "../Domain/Actor.ts"
import { Conflict, Forbidden, notFound } from "../Domain/Errors.ts"
import type { BatchId } from "../Domain/Ids.ts"
import { SealedAmounts, SealedEnvelope, type StoredEnvelope } from "../Domain/SealedAmounts.ts"
import { AuditTrail } from "../Sql/AuditTrail.ts"
import { BatchRepo } from "./BatchRepo.ts"
import { ControlRepo } from "./ControlRepo.ts"
import { batchPolicy } from "./Policy.ts"
import { SealedAmountsRepo } from "./SealedAmountsRepo.ts"
import { checkRecipients } from "./SealedRecipients.ts"
import * as Spans from "../Observability/Spans.ts"

/**
 * SHA-256 of the key commitment's 32 bytes, the nonce's 12 and the ciphertext's, lowercase hex: what approvals bind
 * (not the recipients), as the client's `digest` computes it (client/src/sealing/Envelope.ts). The fixed-length parts
 * come first, so the bytes split one way.
 */
export const sealedDigest = (envelope: Pick<SealedEnvelope, "keyCommitment" | "nonce" | "ciphertext">) =>
  createHash("sha256")
    .update(Buffer.from(envelope.keyCommitment, "base64url"))
    .update(Buffer.from(envelope.nonce, "base64url"))
    .update(Buffer.from(envelope.ciphertext, "base64url"))
    .digest("hex")

/** The envelope on file when `digest` names the same document (a share), of the current version; else undefined. */
export const sharedFrom = (stored: Option.Option<{ readonly envelope: StoredEnvelope; readonly digest: string }>, digest: string) => {
  if (Option.isNone(stored) || stored.value.digest !== digest) return undefined
  const { envelope } = stored.value
  return envelope instanceof SealedEnvelope ? envelope : undefined
}

/**
 * A batch's sealed amounts (issue 31 §1): stored opaque, each recipient a current member who may read amounts, wrapped
 * to the sealing key they published. New amounts (another digest) only while the batch is a draft, by a member who
 * edits batches, and they clear its approvals; the same amounts shared with more members in any state until the batch
 * is final, a share only adding recipients (issue 35 §4: SealedRecipients.ts).
 */
export class Sealing extends Effect.Service<Sealing>()("Batches/Sealing", {
  effect: Effect.gen(function*() {
    const batches = yield* BatchRepo
    const controls = yield* ControlRepo
    const repo = yield* SealedAmountsRepo
    const audit = yield* AuditTrail

    const put = Spans.fn("Sealing.put")(function*(actor: Actor, id: BatchId, envelope: SealedEnvelope) {
      const digest = sealedDigest(envelope)
      return yield* batches.transaction(Effect.gen(function*() {
        const locked = yield* controls.lock(actor.orgId, id)
        if (Option.isNone(locked)) return yield* notFound("batch")
        const batch = locked.value
        const stored = yield* repo.lock(id)
        const previous = Option.map(stored, (s) => s.digest)
        const shared = sharedFrom(stored, digest)
        const changed = shared === undefined
        if (changed) {
          if (!actor.permissions.includes(batchPolicy.write)) {
            return yield* new Forbidden({
              error: `new amounts need the permission ${batchPolicy.write}, which the role ${actor.role} does not grant ` +
                "(the same amounts may be shared with more members)"
            })
          }
          if (batch.status !== "draft") {
            return yield* new Conflict({ error: `the batch is ${batch.status}; its amounts change only while it is a draft` })
          }
        } else if (batch.status === "completed" || batch.status === "canceled") {
          return yield* new Conflict({ error: `the batch is ${batch.status}; its sealed amounts can no longer be shared` })
        }
        yield* checkRecipients(repo.readers, actor.orgId, envelope, shared)
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* repo.store(id, envelope, digest, at, actor.sub)
        if (changed) yield* repo.clearApprovals(id)
        yield* audit.append({
          orgId: actor.orgId,
          actor: actor.audit,
          action: changed ? "batch.amounts_sealed" : "batch.amounts_shared",
          subject: { type: "batch", id },
          from: Option.getOrNull(previous),
          to: digest
        })
        return new SealedAmounts({ envelope, digest, updatedAt: DateTime.unsafeFromDate(at), updatedBy: actor.sub })
      }))
    })

    const get = Spans.fn("Sealing.get")(function*(actor: Actor, id: BatchId) {
      yield* Effect.flatMap(batches.find(actor.orgId, id), Option.match({ onNone: () => notFound("batch"), onSome: () => Effect.void }))
      return yield* Effect.flatMap(repo.find(id), Option.match({ onNone: () => notFound("sealed amounts"), onSome: Effect.succeed }))
    })

    return { put, get } as const
  }),
  dependencies: [BatchRepo.Default, ControlRepo.Default, SealedAmountsRepo.Default, AuditTrail.Default]
}) {}
