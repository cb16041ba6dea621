import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhooks: an organization's endpoints, the events written for them (the outbox) and one delivery per endpoint and
 * event. The signing secret has to be kept as it is (each delivery is signed with it). An event is stored only when
 * some endpoint was subscribed to its type as it was emitted, with the exact body every delivery of it sends.
 * A delivery is `pending` until it is `delivered` or `failed` (attempts exhausted, or its endpoint disabled); while
 * pending, `next_attempt_at` is when any instance may claim it next, and a claim pushes it past the attempt's timeout
 * (a lease): an instance that dies mid-attempt leaves it to be claimed again once that time passes.
 */
const statements = [
  `CREATE TABLE webhook_endpoints (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    url text NOT NULL,
    events text[] NOT NULL,
    secret text NOT NULL,
    created_at timestamptz NOT NULL,
    last_success_at timestamptz,
    disabled_at timestamptz,
    disabled_reason text
  )`,
  `CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, created_at DESC)`,
  `CREATE TABLE webhook_events (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    type text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    event_type text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    first_attempt_at timestamptz,
    lease_owner text,
    last_attempt_at timestamptz,
    last_status_code integer,
    last_error text,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`,
  `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE status <> 'pending'`,
  `CREATE INDEX webhook_events_created ON webhook_events (created_at)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
