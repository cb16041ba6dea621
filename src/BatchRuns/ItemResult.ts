import { Cause, Effect, Exit, Match, Option } from "effect"
import type { Transfers } from "../Transfers/Transfers.ts"
import type { ResultRow } from "./JobRepo.ts"

type SubmitError = Effect.Effect.Error<ReturnType<Transfers["submit"]>>

/** The result row of one item: its outcome named by the error's tag. */
export const itemResult = (i: number, innerHash: string, exit: Exit.Exit<{ readonly hash: string }, SubmitError>): ResultRow =>
  Exit.match(exit, {
    onSuccess: ({ hash }): ResultRow => ({ i, hash, status: "SUCCESS", error: null }),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onNone: (): ResultRow => ({ i, hash: innerHash, status: "ERROR", error: "internal error" }),
        onSome: (error) =>
          Match.value(error).pipe(
            Match.tagsExhaustive({
              TransferRejected: (e): ResultRow => ({ i, hash: e.hash, status: "FAILED", error: `${e.error} (${e.resultCode})` }),
              TransferTimeout: (e): ResultRow => ({ i, hash: e.hash, status: "TIMEOUT", error: e.error }),
              UpstreamUnavailable: (e): ResultRow => ({ i, hash: e.hash ?? innerHash, status: "ERROR", error: e.error }),
              // The worker records no result for an item the database stopped: it is run again once it is back.
              ServiceUnavailable: (e): ResultRow => ({ i, hash: innerHash, status: "ERROR", error: e.error }),
              InvalidRequest: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              Forbidden: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              SponsorRefused: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              NotFound: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error }),
              Conflict: (e): ResultRow => ({ i, hash: innerHash, status: "REFUSED", error: e.error })
            })
          )
      })
  })
