import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A lease records which instance holds it, so that only that instance renews or releases it: an instance whose
 * lease lapsed and was claimed by another can no longer extend it. `send_attempts` was never read or written.
 */
const statements = [
  `ALTER TABLE submissions ADD COLUMN lease_owner text`,
  `ALTER TABLE batch_jobs ADD COLUMN lease_owner text`,
  `ALTER TABLE submissions DROP COLUMN send_attempts`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
