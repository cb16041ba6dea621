import { Duration, Effect, Layer } from "effect"
import { OperationsConfig } from "../Config.ts"
import { Drain } from "../Http/Drain.ts"
import * as Spans from "../Observability/Spans.ts"
import { repeatRounds } from "../Sql/Rounds.ts"
import { AuditLog } from "./AuditLog.ts"
import { AuditRepo } from "./AuditRepo.ts"

/** Organizations sealed per round; the rest wait a second. */
const ORGS_PER_ROUND = 100

const INTERVAL = Duration.seconds(1)

/**
 * Every instance links the audit rows appended since the last round into their organizations' chains, every second
 * (not while draining). Instances seal side by side: each seal takes its organization's advisory lock, so two never
 * link the same rows, and an organization's rows are linked in the order the seals ran. A failed round is logged and
 * retried after a backoff; its transaction rolled back, so nothing is linked twice or half.
 */
export const AuditSealerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* AuditRepo
    const log = yield* AuditLog
    const drain = yield* Drain
    const { workerMaxBackoff } = yield* OperationsConfig

    const round = Spans.fn("AuditSealer.round")(function*() {
      const orgs = yield* repo.unlinkedOrgs(ORGS_PER_ROUND)
      let linked = 0
      for (const orgId of orgs) linked += yield* log.seal(orgId)
      if (linked > 0) yield* Effect.logDebug("audit rows linked").pipe(Effect.annotateLogs({ linked, orgs: orgs.length }))
    })

    yield* repeatRounds("audit sealer", Effect.asVoid(Effect.unlessEffect(round(), drain.draining)), {
      interval: INTERVAL,
      maxBackoff: Duration.max(INTERVAL, workerMaxBackoff)
    }).pipe(Effect.forkScoped)
  })
)
