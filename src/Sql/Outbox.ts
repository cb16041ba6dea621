import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { OrgId } from "../Domain/Ids.ts"

/** One event for an organization's webhooks: `{type, timestamp, data}` is what its endpoints receive. */
export interface OutboxEvent {
  readonly orgId: OrgId
  /** e.g. `contractor.ready`, `payout.settled`, `payout.failed`, `batch.completed`, `batch_run.completed` */
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * (Skeleton, filled by the webhooks work.) The events outbox: a feature calls `emit` inside the same SQL transaction
 * as the state change the event reports (it runs on the ambient SqlClient connection, so within `sql.withTransaction`
 * it commits or rolls back with that change); the webhooks feature delivers what was written.
 */
export class Outbox extends Effect.Service<Outbox>()("Sql/Outbox", {
  effect: Effect.gen(function*() {
    yield* SqlClient.SqlClient
    const emit = (_event: OutboxEvent): Effect.Effect<void, ServiceUnavailable> => Effect.void
    return { emit } as const
  })
}) {}
