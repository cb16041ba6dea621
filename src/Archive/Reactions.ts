import { Effect } from "effect"
import { Contractors } from "../Contractors/Contractors.ts"
import { orUnavailable } from "../Sql/Errors.ts"
import { Settle } from "../Transfers/Settle.ts"
import { EventRepo, type Reaction } from "./EventRepo.ts"
import * as Spans from "../Observability/Spans.ts"

/** A reaction that keeps failing this many times is dropped (logged): its event stays archived. */
const MAX_FAILURES = 12

/**
 * The chain drives the service's own state, from the events ingestion recorded for it: a `register` makes the
 * directory's contractors of that address `ready` (their viewing key read as POST /contractors/{id}/check reads it);
 * a `transfer` in a sponsored fee-bump settles its submission as the reconciler's poll would. Both moves are guarded
 * by the state they leave, so the two paths never settle or ready anything twice; a reaction is removed once handled
 * and tried again later when the RPC could not say.
 */
export const makeReactions = Effect.gen(function*() {
  const repo = yield* EventRepo
  const contractors = yield* Contractors
  const settle = yield* Settle

  const handle = (reaction: Reaction) =>
    reaction.type === "register"
      ? contractors.readyOnChain(reaction.account).pipe(
        Effect.as(true),
        Effect.catchTags({
          UpstreamUnavailable: () => Effect.succeed(false),
          NotRegistered: () => Effect.succeed(false)
        })
      )
      : Effect.as(settle.landedOnChain(reaction.txHash, reaction.ledgerSeq), true)

  /** Handles the reactions due, oldest ledger first. */
  const run = Effect.gen(function*() {
    const due = yield* repo.reactions(100)
    for (const reaction of due) {
      const handled = yield* handle(reaction)
      if (handled) {
        yield* repo.reacted(reaction.eventId).pipe(orUnavailable)
        continue
      }
      if (reaction.failures + 1 < MAX_FAILURES) {
        yield* repo.reactLater(reaction.eventId)
        continue
      }
      yield* Effect.logWarning(`gave up following the ${reaction.type} event of ${reaction.account} after ${MAX_FAILURES} tries`)
      yield* repo.reacted(reaction.eventId).pipe(orUnavailable)
    }
  }).pipe(Spans.withSpan("Archive.reactions"))

  return { run } as const
})
