import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The audit trail's hash chain moves out of `audit_log` into `audit_seals`, so an audit row is written once.
 *
 * Before, the sealer linked each row with an UPDATE of its three link columns: a second version of every row, its
 * indexes written again, through the append-only trigger, on every payout's two rows (bench/README.md, "Issue 22").
 * Now a seal is one row per organization and round: the ids of the rows it linked, in chain order, and their hashes
 * (32 bytes each, concatenated). `audit_log` refuses every UPDATE, as `audit_seals` does.
 *
 * A row carries the id of the transaction that wrote it (`xid`, a 64-bit `xid8` that does not wrap around). One sealer
 * at a time links the rows after a cursor, in (xid, seq) order, up to the oldest transaction still running: every
 * transaction below it has ended, so no row can still appear behind the cursor, and none is linked twice or skipped.
 * Reading a table by transaction snapshots is what PostgreSQL's snapshot functions are for ("to determine which
 * transactions were committed between two snapshots", functions-info.html) and how Skytools' PgQ batches its queues.
 *
 * Rows already linked become seals of up to 1,000 rows as they were linked (an emptied hash, which only a hand edit
 * makes, becomes 32 zero bytes, which verification names); they take xid 1 and the cursor is put after them. Rows
 * still unlinked take xid 2, so they are linked next, in seq order. Transactions' own ids start at 3.
 */
const statements = [
  `CREATE TABLE audit_seals (
    org_id uuid NOT NULL,
    first_position bigint NOT NULL,
    last_position bigint NOT NULL,
    ids uuid[] NOT NULL,
    hashes bytea NOT NULL,
    sealed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, last_position)
  )`,
  `INSERT INTO audit_seals (org_id, first_position, last_position, ids, hashes)
    SELECT org_id, min(position), max(position), array_agg(id ORDER BY position),
      string_agg(coalesce(hash, decode(repeat('00', 32), 'hex')), ''::bytea ORDER BY position)
    FROM audit_log WHERE position IS NOT NULL
    GROUP BY org_id, (position - 1) / 1000`,
  `CREATE TABLE audit_seal_cursor (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    xid xid8 NOT NULL,
    seq bigint NOT NULL
  )`,
  `INSERT INTO audit_seal_cursor (xid, seq)
    SELECT '1', coalesce(max(seq), 0) FROM audit_log WHERE position IS NOT NULL`,

  `ALTER TABLE audit_log ADD COLUMN xid xid8 NOT NULL DEFAULT '1'`,
  `ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`,
  `UPDATE audit_log SET xid = '2' WHERE position IS NULL`,
  `ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`,
  `ALTER TABLE audit_log ALTER COLUMN xid SET DEFAULT pg_current_xact_id()`,
  `ALTER TABLE audit_log DROP COLUMN position, DROP COLUMN prev_hash, DROP COLUMN hash`,
  `CREATE INDEX audit_log_sealing ON audit_log (xid, seq)`,

  `CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
  END
  $$`,
  `CREATE TRIGGER audit_seals_append_only BEFORE UPDATE OR DELETE ON audit_seals
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`,
  `CREATE TRIGGER audit_seals_no_truncate BEFORE TRUNCATE ON audit_seals
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
