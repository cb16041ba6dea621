import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The confidential token's `ConfidentialAccount` carries the auditor an account committed to (public), and invite
 * tokens are now derived from the invite's id with a keyed MAC, so that `GET /me` can hand a pending invite to
 * the contractor it was made for; older random tokens keep working as they are.
 */
const statements = [
  `ALTER TABLE contractors ADD COLUMN auditor_id integer`,
  `ALTER TABLE invites ADD COLUMN derived boolean NOT NULL DEFAULT false`,
  `CREATE INDEX contractors_invited_email ON contractors (lower(email)) WHERE status = 'invited' AND email IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
