import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Rate-limit counters are written on every limited request (sign-in, and every read of the public archive): as an
 * unlogged table their writes skip the write-ahead log, so a request no longer waits for a WAL flush to count a hit.
 * After a database crash the table comes back empty, which only restarts every window: a counter need not outlive
 * one.
 */
const statements = [`ALTER TABLE rate_limits SET UNLOGGED`]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
