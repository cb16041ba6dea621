import { Clock, Effect, Match, Option } from "effect"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import { outcomeOf, type SubmissionOutcome, TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"
import { countTransferOutcome } from "../Observability/Metrics.ts"
import type { PollOutcome, SendOutcome } from "./Network.ts"
import { SettlementHooks } from "./SettlementHooks.ts"
import { IN_FLIGHT, type Submission, SubmissionRepo } from "./SubmissionRepo.ts"
import { unavailableOrDie } from "../Sql/Errors.ts"

/** Writes what the network said about a submission; every state change goes through here. */
export class Settle extends Effect.Service<Settle>()("Transfers/Settle", {
  effect: Effect.gen(function*() {
    const repo = yield* SubmissionRepo
    const hooks = yield* SettlementHooks

    /**
     * Moves the submission and, when it pays a payout, the payout with it, in one transaction. The row as it now
     * stands when this writer moved it; none when another writer got there first.
     */
    const finish = (
      row: Submission,
      to: "success" | "failed" | "rejected" | "expired",
      fields: { readonly resultCode?: string; readonly ledger?: number; readonly closedAt?: Date }
    ): Effect.Effect<Option.Option<Submission>, ServiceUnavailable> =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const work = Effect.gen(function*() {
          const moved = yield* repo.transition(row.innerHash, IN_FLIGHT, to, fields, now)
          if (!moved) return false
          if (to === "rejected" || to === "expired") {
            yield* repo.releaseQuota(row.innerHash)
            yield* hooks.released(row.innerHash)
          }
          if (row.payoutId !== null) {
            yield* hooks.settled(
              row.payoutId,
              to === "success" ? { settled: true } : { settled: false, error: fields.resultCode ?? to },
              now
            )
          }
          return true
        })
        // A lone state change needs no transaction of its own; one with follow-up writes does.
        const alone = row.payoutId === null && (to === "success" || to === "failed")
        const moved = yield* (alone ? Effect.catchTag(work, "SqlError", unavailableOrDie) : repo.atomically(work))
        if (!moved) return Option.none()
        yield* countTransferOutcome(outcomeOf(to))
        return Option.some<Submission>({
          ...row,
          state: to,
          resultCode: fields.resultCode ?? null,
          ledger: fields.ledger ?? null,
          updatedAt: now
        })
      })

    const log = (row: Submission, message: string) =>
      Effect.logInfo(message).pipe(Effect.annotateLogs({ hash: row.outerHash, source: row.source }))

    /** What sending did to the submission: the final row when the network refused it. */
    const afterSend = (row: Submission, outcome: SendOutcome): Effect.Effect<Option.Option<Submission>, ServiceUnavailable> =>
      Match.valueTags(outcome, {
        Accepted: () =>
          repo.transition(row.innerHash, ["pending"], "submitted").pipe(
            Effect.zipRight(log(row, "transfer submitted")),
            Effect.as(Option.none())
          ),
        Rejected: ({ code }) => finish(row, "rejected", { resultCode: code }).pipe(Effect.tap(log(row, `transfer rejected: ${code}`))),
        Busy: () =>
          log(row, "the network stayed busy (TRY_AGAIN_LATER) until the transaction's deadline").pipe(Effect.as(Option.none())),
        Unreachable: ({ message }) => log(row, `Stellar RPC unreachable while sending: ${message}`).pipe(Effect.as(Option.none())),
        Unreadable: ({ message }) =>
          log(row, `Stellar RPC's answer to sendTransaction could not be read: ${message}`).pipe(Effect.as(Option.none()))
      })

    /** What the ledger said: the final row when this writer settled it. */
    const afterPoll = (row: Submission, outcome: PollOutcome): Effect.Effect<Option.Option<Submission>, ServiceUnavailable> =>
      Match.valueTags(outcome, {
        Landed: ({ closedAt, ledger }) =>
          finish(row, "success", { ...(ledger === undefined ? {} : { ledger }), ...(closedAt === undefined ? {} : { closedAt }) }).pipe(
            Effect.tap(log(row, "transfer settled"))
          ),
        Failed: ({ code, ledger }) =>
          finish(row, "failed", { resultCode: code, ...(ledger === undefined ? {} : { ledger }) }).pipe(Effect.tap(log(row, `transfer failed: ${code}`))),
        Gone: () =>
          finish(row, "expired", { resultCode: "txTooLate" }).pipe(
            Effect.tap(log(row, "transfer expired: the ledger closed past its maxTime without it"))
          ),
        // Never on the ledger, and never will be: no fee was charged, so it ends as a refusal would, with the code the
        // network gives a transaction whose sequence number was used.
        Superseded: () =>
          finish(row, "rejected", { resultCode: "txBadSeq" }).pipe(
            Effect.tap(log(row, "transfer rejected: another transaction of its source account used its sequence number"))
          ),
        NotYet: () => Effect.succeed(Option.none())
      })

    /**
     * The chain's own word that a transaction applied: a `transfer` event of the confidential token in the fee-bump
     * `outerHash` (events come only from successful calls). Settles the submission when it is still in flight, as a
     * poll that saw it land would (the state move is guarded, so the two paths never settle it twice); none when it
     * is no sponsored submission or is already final.
     */
    const landedOnChain = (outerHash: string, ledger: number): Effect.Effect<Option.Option<Submission>, ServiceUnavailable> =>
      repo.find(outerHash).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (row) =>
            row.outerHash === outerHash && IN_FLIGHT.includes(row.state)
              ? finish(row, "success", { ledger }).pipe(Effect.tap(Option.match({
                onNone: () => Effect.void,
                onSome: () => log(row, "transfer settled from its transfer event")
              })))
              : Effect.succeedNone
        }))
      )

    return { afterSend, afterPoll, landedOnChain } as const
  }),
  dependencies: [SubmissionRepo.Default]
}) {}

/** The HTTP answer for a submission in its current state. */
export const answerFor = (row: SubmissionOutcome): Effect.Effect<TransferResult, TransferRejected | TransferTimeout> => {
  switch (row.state) {
    case "success":
      return Effect.succeed(new TransferResult({ hash: row.outerHash, status: "SUCCESS" }))
    case "failed":
      return Effect.fail(new TransferRejected({
        error: "the transaction failed on the ledger",
        hash: row.outerHash,
        resultCode: row.resultCode ?? "unknown"
      }))
    case "rejected":
      return Effect.fail(new TransferRejected({
        error: "the network rejected the transaction",
        hash: row.outerHash,
        resultCode: row.resultCode ?? "unknown"
      }))
    case "expired":
      return Effect.fail(new TransferTimeout({ error: "the transaction did not reach the ledger before its maxTime", hash: row.outerHash }))
    default:
      return Effect.fail(new TransferTimeout({
        error: "the transaction is not final yet; GET /transfers/{hash} tells the outcome",
        hash: row.outerHash
      }))
  }
}
