import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Payroll controls (issue 22): members' roles, the approval rule, batch approvals, paused and canceled states, API
 * keys narrowed to a role and to networks, and the audit trail.
 *
 * - Every existing member becomes `owner`, so nothing an organization could do before is lost; an open employer
 *   invite made before joins as `owner` too (it was an invite to full powers).
 * - `audit_log` is append-only: a trigger refuses DELETE, TRUNCATE and every UPDATE but the one that links a row
 *   into its organization's hash chain (`position`, `prev_hash`, `hash` set once, nothing else changed). Rows are
 *   appended in the transaction of the change they record, ordered by `seq`; the sealer links them afterwards, so
 *   no lock is held across a payout's transaction (shared/DESIGN.md §6).
 * - `submissions.closed_at`: the close time of the ledger that settled a transfer, for settle-time statistics.
 */
const statements = [
  `ALTER TABLE org_members DROP CONSTRAINT IF EXISTS org_members_role_check`,
  `UPDATE org_members SET role = 'owner'`,
  `ALTER TABLE org_members ADD CONSTRAINT org_members_role_check
    CHECK (role IN ('owner', 'admin', 'initiator', 'approver', 'payer', 'viewer'))`,
  `ALTER TABLE org_members ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid()`,
  `ALTER TABLE org_members ADD CONSTRAINT org_members_id UNIQUE (id)`,
  `CREATE INDEX org_members_page ON org_members (org_id, created_at DESC, id DESC)`,
  `ALTER TABLE org_invites ADD COLUMN role text NOT NULL DEFAULT 'owner'
    CHECK (role IN ('owner', 'admin', 'initiator', 'approver', 'payer', 'viewer'))`,
  `ALTER TABLE org_invites ALTER COLUMN role SET DEFAULT 'viewer'`,
  `CREATE TABLE org_settings (
    org_id uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    approvals_required integer NOT NULL DEFAULT 0 CHECK (approvals_required BETWEEN 0 AND 2),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`,

  `ALTER TABLE batches DROP CONSTRAINT IF EXISTS batches_status_check`,
  `ALTER TABLE batches ADD CONSTRAINT batches_status_check
    CHECK (status IN ('draft', 'ready', 'started', 'paused', 'completed', 'canceled'))`,
  `ALTER TABLE batches ADD COLUMN created_by text`,
  `ALTER TABLE batches ADD COLUMN readied_by text`,
  `ALTER TABLE batches ADD COLUMN paused_from text CHECK (paused_from IN ('ready', 'started'))`,
  `ALTER TABLE batches ADD COLUMN canceled_count integer NOT NULL DEFAULT 0`,
  `ALTER TABLE batches ADD COLUMN cancel_requested_at timestamptz`,
  `CREATE TABLE batch_approvals (
    batch_id uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    member_sub text NOT NULL,
    approved_at timestamptz NOT NULL,
    PRIMARY KEY (batch_id, member_sub)
  )`,
  `ALTER TABLE payouts DROP CONSTRAINT IF EXISTS payouts_status_check`,
  `ALTER TABLE payouts ADD CONSTRAINT payouts_status_check
    CHECK (status IN ('draft', 'ready', 'submitted', 'settled', 'failed', 'canceled'))`,
  // The payouts export pages through an organization's payouts in creation order.
  `CREATE INDEX payouts_org_page ON payouts (org_id, created_at, id)`,

  `ALTER TABLE api_keys ADD COLUMN role text
    CHECK (role IN ('owner', 'admin', 'initiator', 'approver', 'payer', 'viewer'))`,
  `ALTER TABLE api_keys ADD COLUMN allowed_cidrs text[]`,

  `ALTER TABLE submissions ADD COLUMN closed_at timestamptz`,
  `CREATE INDEX submissions_org_closed ON submissions (org_id, closed_at) WHERE closed_at IS NOT NULL`,

  `CREATE TABLE audit_log (
    seq bigserial PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    org_id uuid NOT NULL,
    at timestamptz NOT NULL,
    actor_type text NOT NULL CHECK (actor_type IN ('member', 'apiKey', 'system')),
    actor_id text NOT NULL,
    action text NOT NULL,
    subject_type text NOT NULL,
    subject_id text NOT NULL,
    from_state text,
    to_state text,
    request_id text,
    position bigint,
    prev_hash bytea,
    hash bytea
  )`,
  `CREATE INDEX audit_log_org_page ON audit_log (org_id, seq DESC)`,
  `CREATE INDEX audit_log_unlinked ON audit_log (org_id, seq) WHERE hash IS NULL`,
  `CREATE UNIQUE INDEX audit_log_chain ON audit_log (org_id, position) WHERE position IS NOT NULL`,
  `CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'UPDATE'
      AND OLD.hash IS NULL AND OLD.position IS NULL AND OLD.prev_hash IS NULL
      AND NEW.hash IS NOT NULL AND NEW.position IS NOT NULL AND NEW.prev_hash IS NOT NULL
      AND (NEW.seq, NEW.id, NEW.org_id, NEW.at, NEW.actor_type, NEW.actor_id, NEW.action, NEW.subject_type,
           NEW.subject_id, NEW.from_state, NEW.to_state, NEW.request_id)
        IS NOT DISTINCT FROM
          (OLD.seq, OLD.id, OLD.org_id, OLD.at, OLD.actor_type, OLD.actor_id, OLD.action, OLD.subject_type,
           OLD.subject_id, OLD.from_state, OLD.to_state, OLD.request_id)
    THEN
      RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END
  $$`,
  `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`,
  `CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
