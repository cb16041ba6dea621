import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Layer, Schema } from "effect"
import { OperationsConfig } from "../Config.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { Drain } from "../Http/Drain.ts"
import * as Spans from "../Observability/Spans.ts"
import { unavailableOrDie } from "../Sql/Errors.ts"
import { Outbox } from "../Sql/Outbox.ts"
import { repeatRounds } from "../Workers/Rounds.ts"
import { AuditLog } from "./AuditLog.ts"
import { AuditVerification } from "./AuditRecord.ts"
import { AuditRepo } from "./AuditRepo.ts"
import { AuditConfig } from "./Config.ts"

/** The longest pause between two looks for checkpoints due (shorter when AUDIT_CHECKPOINT_INTERVAL is). */
const LOOK_EVERY = Duration.minutes(1)

/** Organizations verified per round, one after another: the rest are due still, and come in the next rounds. */
const ORGS_PER_ROUND = 20

const encodeVerification = Schema.encode(AuditVerification)

/**
 * Sends each organization that asks for it (a webhook endpoint subscribed to `audit.checkpoint`) the verification of
 * its audit chain once every AUDIT_CHECKPOINT_INTERVAL: `data` is what `GET /audit/verify` answers, so for a chain that
 * holds it carries the head signed with the service's SEP-10 key. A receiver that keeps them holds copies of the head
 * outside this service's database: given back (`?checkpoint=position:hash`) they show whether the newest entries were
 * removed, or the chain recomputed, since. A chain that does not hold is sent too (`verified: false`, the first entry
 * that breaks it) and logged, so that the organization hears of it without asking.
 *
 * Every instance looks (not while draining); the send is claimed in the transaction that queues the event
 * (`audit_checkpoint_sends`), so one instance sends each interval's checkpoint, and a crash before the commit leaves it
 * due. Verifications wait their turn with members' (AuditLog.verify's bound).
 */
export const AuditCheckpointsLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const log = yield* AuditLog
    const repo = yield* AuditRepo
    const outbox = yield* Outbox
    const sql = yield* SqlClient.SqlClient
    const drain = yield* Drain
    const { workerMaxBackoff } = yield* OperationsConfig
    const { checkpointInterval } = yield* AuditConfig
    /** Now, and the time before which a last send makes the next one due. */
    const times = Effect.map(Clock.currentTimeMillis, (now) => ({
      now: new Date(now),
      dueBefore: new Date(now - Duration.toMillis(checkpointInterval))
    }))

    const send = Spans.fn("AuditCheckpoints.send")(function*(orgId: OrgId) {
      const verification = yield* log.verify(orgId)
      const data = yield* Effect.orDie(encodeVerification(verification))
      const { dueBefore, now } = yield* times
      const sent = yield* sql.withTransaction(
        Effect.flatMap(repo.claimCheckpoint(orgId, now, dueBefore), (claimed) =>
          claimed ? Effect.as(outbox.emit({ orgId, type: "audit.checkpoint", data, at: now }), true) : Effect.succeed(false))
      ).pipe(Effect.catchTag("SqlError", unavailableOrDie))
      if (sent && !verification.verified) {
        yield* Effect.logWarning("an organization's audit chain does not verify; its checkpoint webhook says so").pipe(
          Effect.annotateLogs({ orgId, firstBrokenId: verification.firstBrokenId ?? "none", rows: verification.rows })
        )
      }
    })

    const round = Effect.gen(function*() {
      const due = yield* repo.checkpointsDue((yield* times).dueBefore, ORGS_PER_ROUND)
      yield* Effect.forEach(due, send, { discard: true })
    })

    const every = Duration.min(checkpointInterval, LOOK_EVERY)
    yield* repeatRounds("audit checkpoints", Effect.asVoid(Effect.unlessEffect(round, drain.draining)), {
      interval: every,
      maxBackoff: Duration.max(every, workerMaxBackoff)
    }).pipe(Effect.forkScoped)
  })
)
