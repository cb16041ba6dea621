import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Rate-limit counters shared by every instance: one row per key (for sign-in, the client address) holding the
 * current fixed window and its count, bumped by one atomic upsert; rows past their window are swept.
 */
const statements = [
  `CREATE TABLE rate_limits (
    key text PRIMARY KEY,
    window_start timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    hits integer NOT NULL
  )`,
  `CREATE INDEX rate_limits_expires_at ON rate_limits (expires_at)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
