import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The archive learns the confidential token's newer events (issue 23 §2): a `revoke_spender` is a checkpoint only in
 * the shape that carries `(b_tilde, sigma)`, so the checkpoint flags of the events archived so far are recomputed.
 *
 * Not here: a migration runs at start-up in one transaction, and rewriting every attribution row in it would hold the
 * start (and the rows) for as long as the archive is large. This records the work instead — the events archived so
 * far, up to the greatest event id now — and src/Archive/Backfill.ts does it in the background, 1,000 events a
 * transaction, resumable from `position`, one instance at a time (the row is locked per batch), while ingestion goes
 * on. Both statements are constant-time: `max(id)` is read from the primary key's index; no archive table is locked.
 */
const statements = [
  `CREATE TABLE archive_backfills (
    name text PRIMARY KEY,
    position text NOT NULL DEFAULT '',
    until_id text,
    events integer NOT NULL DEFAULT 0,
    changed integer NOT NULL DEFAULT 0,
    started_at timestamptz NOT NULL DEFAULT now(),
    done_at timestamptz
  )`,
  `INSERT INTO archive_backfills (name, until_id, done_at)
    SELECT 'attribution-2', max(id), CASE WHEN max(id) IS NULL THEN now() END FROM archive_events`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
