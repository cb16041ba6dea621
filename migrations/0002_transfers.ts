import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE submissions (
    inner_hash text PRIMARY KEY,
    outer_hash text NOT NULL UNIQUE,
    envelope text NOT NULL,
    source text NOT NULL,
    session_sub text NOT NULL,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    payout_id uuid,
    state text NOT NULL CHECK (state IN ('pending', 'submitted', 'success', 'failed', 'rejected', 'expired')),
    result_code text,
    ledger integer,
    max_time timestamptz NOT NULL,
    lease_until timestamptz NOT NULL,
    send_attempts integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX submissions_in_flight ON submissions (lease_until) WHERE state IN ('pending', 'submitted')`,
  `CREATE INDEX submissions_org ON submissions (org_id, created_at DESC)`,
  `CREATE TABLE sponsor_quota (
    inner_hash text PRIMARY KEY REFERENCES submissions (inner_hash) ON DELETE CASCADE,
    source text NOT NULL,
    reserved_at timestamptz NOT NULL
  )`,
  `CREATE INDEX sponsor_quota_source ON sponsor_quota (source, reserved_at)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
