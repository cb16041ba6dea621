import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"
import { orUnavailable } from "./Errors.ts"
import * as Spans from "../Observability/Spans.ts"

/** One event for an organization's webhooks: `{type, timestamp, data}` is what its endpoints receive. */
export interface OutboxEvent {
  readonly orgId: OrgId
  /** e.g. `contractor.ready`, `payout.settled`, `payout.failed`, `batch.completed`, `batch_run.completed` */
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  /** When the change was recorded, if not now (the body's `timestamp`). */
  readonly at?: Date | undefined
}

/** The channel a commit that queued deliveries notifies, so that delivery workers start at once instead of polling. */
export const OUTBOX_CHANNEL = "webhook_deliveries"

/**
 * The events outbox: a feature calls `emit` inside the same SQL transaction as the state change the event reports
 * (it runs on the ambient SqlClient connection, so within `sql.withTransaction` it commits or rolls back with that
 * change). It fans out at once: one statement stores the event with its exact body and queues a delivery for every
 * enabled endpoint of the organization subscribed to its type, and notifies the delivery workers (PostgreSQL sends
 * a NOTIFY on commit only). An event no endpoint subscribes to is not stored.
 */
export class Outbox extends Effect.Service<Outbox>()("Sql/Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const emit = (event: OutboxEvent): Effect.Effect<void, ServiceUnavailable> =>
      Effect.gen(function*() {
        const now = event.at ?? new Date(yield* Clock.currentTimeMillis)
        const body = JSON.stringify({ type: event.type, timestamp: now.toISOString(), data: event.data })
        yield* sql`
          WITH targets AS (
            SELECT id FROM webhook_endpoints
            WHERE org_id = ${event.orgId} AND disabled_at IS NULL AND ${event.type} = ANY(events)
          ), stored AS (
            INSERT INTO webhook_events (id, org_id, type, body, created_at)
            SELECT ${randomUUID()}, ${event.orgId}, ${event.type}, ${body}, ${now} WHERE EXISTS (SELECT 1 FROM targets)
            RETURNING id
          ), queued AS (
            INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at)
            SELECT gen_random_uuid(), targets.id, stored.id, ${event.type}, 'pending', ${now}, ${now}
            FROM targets CROSS JOIN stored
            RETURNING 1
          )
          SELECT pg_notify(${OUTBOX_CHANNEL}, 'due') FROM (SELECT count(*) AS n FROM queued) q WHERE q.n > 0`
      }).pipe(Effect.asVoid, orUnavailable, Spans.withSpan("Outbox.emit", { attributes: { type: event.type } }))

    return { emit } as const
  })
}) {}
