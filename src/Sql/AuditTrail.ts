import { SqlClient } from "@effect/sql"
import { Clock, Effect, FiberRef, HashMap, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { AuditActor } from "../Domain/Actor.ts"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "./Errors.ts"
import * as Spans from "../Observability/Spans.ts"

/** One control action or state change. Never a secret, token, key, XDR or proof: ids, states and names of actions. */
export interface AuditEntry {
  readonly orgId: OrgId
  readonly actor: AuditActor
  /** e.g. `member.role_changed`, `batch.approved`, `payout.settled` */
  readonly action: string
  readonly subject: { readonly type: string; readonly id: string }
  readonly from?: string | null
  readonly to?: string | null
}

/** The request being served, as the server middleware annotates its logs (`requestId`), when there is one. */
const currentRequestId = Effect.map(FiberRef.get(FiberRef.currentLogAnnotations), (annotations) =>
  Option.getOrNull(Option.filter(HashMap.get(annotations, "requestId"), (v): v is string => typeof v === "string")))

/**
 * The audit trail's one writer: a feature calls `append` inside the SQL transaction of the change it records (on the
 * ambient connection, so it commits or rolls back with it). Rows are only inserted, each once, with the id of the
 * transaction that wrote it; the sealer (`Audit/Sealer.ts`) links them into the organization's hash chain afterwards,
 * in `audit_seals`, so appending takes no lock beyond its own row. The table refuses UPDATE and DELETE (migrations
 * 0019 and 0022).
 */
export class AuditTrail extends Effect.Service<AuditTrail>()("Sql/AuditTrail", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const appendAll = (entries: ReadonlyArray<AuditEntry>): Effect.Effect<void, ServiceUnavailable> =>
      entries.length === 0 ? Effect.void : Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const requestId = yield* currentRequestId
        yield* sql`INSERT INTO audit_log ${
          sql.insert(entries.map((e) => ({
            id: randomUUID(),
            orgId: e.orgId,
            at,
            actorType: e.actor.type,
            actorId: e.actor.id,
            action: e.action,
            subjectType: e.subject.type,
            subjectId: e.subject.id,
            fromState: e.from ?? null,
            toState: e.to ?? null,
            requestId
          })))
        }`
      }).pipe(Effect.asVoid, orUnavailable, Spans.withSpan("AuditTrail.append"))

    const append = (entry: AuditEntry) => appendAll([entry])

    return { append, appendAll } as const
  })
}) {}
