import { Effect, Option } from "effect"
import type { Actor } from "../Domain/Actor.ts"
import type { Batch } from "../Domain/Batch.ts"
import { Conflict, Forbidden } from "../Domain/Errors.ts"
import type { Permission } from "../Domain/Roles.ts"

/**
 * What each batch operation needs (issue 22 §1), and the four-eyes rule (§2): the member who created a batch and the
 * one who readied it may not approve it, and one member approves a batch once — as the Stellar Disbursement
 * Platform's approval flow keeps the creator of a disbursement from starting it.
 */
export const batchPolicy = {
  read: "batches:read",
  write: "batches:write",
  approve: "batches:approve",
  control: "batches:control",
  pay: "transfers:submit",
  readAmounts: "amounts:read"
} as const satisfies Record<string, Permission>

export const mayApprove = (actor: Actor, batch: Batch) =>
  Effect.gen(function*() {
    if (batch.createdBy._tag === "Some" && batch.createdBy.value === actor.sub) {
      return yield* new Forbidden({ error: "the member who created a batch may not approve it" })
    }
    if (batch.readiedBy._tag === "Some" && batch.readiedBy.value === actor.sub) {
      return yield* new Forbidden({ error: "the member who readied a batch may not approve it" })
    }
    if (batch.approvals.some((a) => a.by === actor.sub)) {
      return yield* new Conflict({ error: "you have already approved this batch" })
    }
  })

/**
 * An approval binds the sealed amounts the approver saw (issue 31 §1): with sealed amounts it must name their current
 * digest; without, it may name none.
 */
export const approvesAmounts = (batch: Batch, named: string | undefined) =>
  Option.match(batch.sealedAmountsDigest, {
    onNone: () =>
      named === undefined ? Effect.void : Effect.fail(new Conflict({ error: "the batch has no sealed amounts: the digest named is not theirs" })),
    onSome: (current) =>
      named === current
        ? Effect.void
        : Effect.fail(new Conflict({
          error: named === undefined
            ? "the batch has sealed amounts: name their digest (sealedAmountsDigest) to approve what you saw"
            : "the amounts changed since you looked: the batch's sealed amounts have another digest now"
        }))
  })

/** Whether the batch holds the approvals its payouts need before they are sponsored; 409 saying how many when not. */
export const approvedEnough = (approvals: number, required: number) =>
  approvals >= required
    ? Effect.void
    : Effect.fail(new Conflict({ error: `the batch has ${approvals} of the ${required} approvals it needs before it is paid` }))
