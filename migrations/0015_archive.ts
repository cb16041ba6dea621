import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The confidential token's event archive (OpenZeppelin's INDEXER.md §3–§5), never pruned:
 * - `archive_events`: every event verbatim (topics and value as base64 XDR, as Stellar RPC serves them), keyed by
 *   the RPC's event id (at-least-once ingestion deduplicates on it), ordered by (ledger, tx order, event index);
 * - `archive_event_accounts`: attribution, one row per (event, address in its topics), the per-account history's
 *   index; `checkpoint` marks the owner's side of a checkpoint event (C1);
 * - `archive_ranges`: the contiguous ledger ranges fully ingested, per contract (C3);
 * - `archive_heads`: what the RPC last said of its ledgers (C4);
 * - `archive_reactions`: ingested events the service's own state follows (`register`, `transfer`), until handled;
 * - `archive_leases`: one ingester at a time across instances.
 */
const statements = [
  `CREATE TABLE archive_events (
    id text PRIMARY KEY,
    contract_id text NOT NULL,
    ledger_seq integer NOT NULL,
    ledger_close_time timestamptz NOT NULL,
    tx_hash text NOT NULL,
    tx_application_order integer NOT NULL,
    event_index integer NOT NULL,
    type text NOT NULL,
    topics text[] NOT NULL,
    value text NOT NULL
  )`,
  `CREATE UNIQUE INDEX archive_events_order ON archive_events (contract_id, ledger_seq, tx_application_order, event_index)`,
  `CREATE TABLE archive_event_accounts (
    contract_id text NOT NULL,
    account text NOT NULL,
    ledger_seq integer NOT NULL,
    tx_application_order integer NOT NULL,
    event_index integer NOT NULL,
    event_id text NOT NULL,
    type text NOT NULL,
    checkpoint boolean NOT NULL,
    PRIMARY KEY (contract_id, account, ledger_seq, tx_application_order, event_index)
  )`,
  `CREATE INDEX archive_checkpoints ON archive_event_accounts
    (contract_id, account, ledger_seq DESC, tx_application_order DESC, event_index DESC) WHERE checkpoint`,
  `CREATE TABLE archive_ranges (
    contract_id text NOT NULL,
    from_ledger integer NOT NULL,
    to_ledger integer NOT NULL,
    PRIMARY KEY (contract_id, from_ledger),
    CHECK (from_ledger <= to_ledger)
  )`,
  `CREATE TABLE archive_heads (
    contract_id text PRIMARY KEY,
    latest_ledger integer NOT NULL,
    latest_close_time timestamptz NOT NULL,
    oldest_ledger integer NOT NULL,
    ingested_close_time timestamptz,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE TABLE archive_reactions (
    event_id text PRIMARY KEY,
    type text NOT NULL,
    account text NOT NULL,
    tx_hash text NOT NULL,
    ledger_seq integer NOT NULL,
    failures integer NOT NULL DEFAULT 0,
    not_before timestamptz NOT NULL DEFAULT 'epoch'
  )`,
  `CREATE TABLE archive_leases (
    name text PRIMARY KEY,
    owner text NOT NULL,
    lease_until timestamptz NOT NULL
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
