import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The inner transaction's sequence number, so that the reconciler never sends an account's later transaction while
 * an earlier one of that account is still in flight (it would fail txBadSeq): the account's in-flight submissions in
 * sequence order. NULL for submissions recorded before.
 */
const statements = [
  `ALTER TABLE submissions ADD COLUMN sequence bigint`,
  `CREATE INDEX submissions_source_in_flight ON submissions (source, sequence) WHERE state IN ('pending', 'submitted')`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
