import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE batches (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name text NOT NULL,
    status text NOT NULL CHECK (status IN ('draft', 'ready', 'started', 'completed')),
    payout_count integer NOT NULL DEFAULT 0,
    settled_count integer NOT NULL DEFAULT 0,
    failed_count integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    started_at timestamptz,
    completed_at timestamptz
  )`,
  `CREATE INDEX batches_org_page ON batches (org_id, created_at DESC, id DESC)`,
  `CREATE TABLE payouts (
    id uuid PRIMARY KEY,
    batch_id uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    contractor_id uuid NOT NULL REFERENCES contractors (id),
    status text NOT NULL CHECK (status IN ('draft', 'ready', 'submitted', 'settled', 'failed')),
    hash text,
    error text,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (batch_id, contractor_id)
  )`,
  `CREATE INDEX payouts_contractor ON payouts (contractor_id, created_at DESC)`,
  `CREATE TABLE batch_jobs (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    session_sub text NOT NULL,
    items jsonb NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    error text,
    lease_until timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    finished_at timestamptz
  )`,
  `CREATE INDEX batch_jobs_open ON batch_jobs (lease_until) WHERE state <> 'done'`,
  `CREATE TABLE batch_job_results (
    job_id uuid NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
    i integer NOT NULL,
    hash text NOT NULL,
    status text NOT NULL,
    error text,
    PRIMARY KEY (job_id, i)
  )`,
  `CREATE TABLE faucet_grants (
    address text NOT NULL,
    granted_at timestamptz NOT NULL,
    inner_hash text NOT NULL
  )`,
  `CREATE INDEX faucet_grants_address ON faucet_grants (address, granted_at)`,
  `ALTER TABLE submissions ALTER COLUMN org_id DROP NOT NULL`,
  `ALTER TABLE submissions ADD CONSTRAINT submissions_payout FOREIGN KEY (payout_id) REFERENCES payouts (id) ON DELETE SET NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
