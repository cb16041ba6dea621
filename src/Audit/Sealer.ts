import { Duration, Effect, Layer } from "effect"
import { OperationsConfig } from "../Config.ts"
import { Drain } from "../Http/Drain.ts"
import * as Spans from "../Observability/Spans.ts"
import { repeatRounds } from "../Workers/Rounds.ts"
import { AuditLog } from "./AuditLog.ts"

const INTERVAL = Duration.seconds(1)

/**
 * Every instance tries, every second (not while draining), to link the audit rows appended since the last round into
 * their organizations' chains. One sealer runs at a time across instances (an advisory lock): a round that finds
 * another running leaves the work to it. A failed round is logged and retried after a backoff; its transaction
 * rolled back, so nothing is linked twice or half.
 */
export const AuditSealerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const log = yield* AuditLog
    const drain = yield* Drain
    const { workerMaxBackoff } = yield* OperationsConfig

    const round = Spans.fn("AuditSealer.round")(function*() {
      const { sealed } = yield* log.seal(false)
      if (sealed > 0) yield* Effect.logDebug("audit rows linked").pipe(Effect.annotateLogs({ sealed }))
    })

    yield* repeatRounds("audit sealer", Effect.asVoid(Effect.unlessEffect(round(), drain.draining)), {
      interval: INTERVAL,
      maxBackoff: Duration.max(INTERVAL, workerMaxBackoff)
    }).pipe(Effect.forkScoped)
  })
)
