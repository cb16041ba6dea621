import { Effect, Match } from "effect"
import { TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"
import type { PollOutcome, SendOutcome } from "./Network.ts"
import { IN_FLIGHT, type Submission, SubmissionRepo } from "./SubmissionRepo.ts"

/** Writes what the network said about a submission; every state change goes through here. */
export class Settle extends Effect.Service<Settle>()("Transfers/Settle", {
  effect: Effect.gen(function*() {
    const repo = yield* SubmissionRepo

    const log = (row: Submission, message: string) =>
      Effect.logInfo(message).pipe(Effect.annotateLogs({ hash: row.outerHash, source: row.source }))

    const afterSend = (row: Submission, outcome: SendOutcome) =>
      Match.valueTags(outcome, {
        Accepted: () => repo.transition(row.innerHash, ["pending"], "submitted").pipe(Effect.zipRight(log(row, "transfer submitted"))),
        Rejected: ({ code }) =>
          repo.transition(row.innerHash, IN_FLIGHT, "rejected", { resultCode: code }).pipe(
            Effect.zipRight(repo.releaseQuota(row.innerHash)),
            Effect.zipRight(log(row, `transfer rejected: ${code}`))
          ),
        Expired: () => expire(row),
        Unreachable: ({ message }) => log(row, `Stellar RPC unreachable while sending: ${message}`)
      })

    const afterPoll = (row: Submission, outcome: PollOutcome) =>
      Match.valueTags(outcome, {
        Landed: ({ ledger }) =>
          repo.transition(row.innerHash, IN_FLIGHT, "success", { ledger }).pipe(Effect.zipRight(log(row, "transfer settled"))),
        Failed: ({ code, ledger }) =>
          repo.transition(row.innerHash, IN_FLIGHT, "failed", { resultCode: code, ledger }).pipe(
            Effect.zipRight(log(row, `transfer failed: ${code}`))
          ),
        NotYet: () => Effect.void
      })

    /** Past its maxTime and not on the ledger: it never will be, and its quota comes back. */
    const expire = (row: Submission) =>
      repo.transition(row.innerHash, IN_FLIGHT, "expired", { resultCode: "txTooLate" }).pipe(
        Effect.zipRight(repo.releaseQuota(row.innerHash)),
        Effect.zipRight(log(row, "transfer expired before reaching the ledger"))
      )

    return { afterSend, afterPoll, expire } as const
  }),
  dependencies: [SubmissionRepo.Default]
}) {}

/** The HTTP answer for a submission in its current state. */
export const answerFor = (row: Submission) => {
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
