import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * SEP-10 challenges are stateless: the nonce and the expiry are inside the challenge, which the service's key signs, so
 * a challenge writes nothing and only a verification records its nonce, once, until the challenge expires. The unique
 * key is what makes a nonce single-use across instances; logged (not unlogged like `rate_limits`), since a replay
 * must stay refused after a crash. `sep10_challenges`, one row per challenge issued, is dropped: the previous version
 * deleted a challenge's row when it was used, so no trace of a used one is left, and challenges issued before this
 * migration ran are refused (400, for the 5 minutes they would otherwise be valid; the wallet asks for a new one).
 */
const statements = [
  `CREATE TABLE sep10_used_nonces (
    nonce text PRIMARY KEY,
    expires_at timestamptz NOT NULL
  )`,
  `CREATE INDEX sep10_used_nonces_expiry ON sep10_used_nonces (expires_at)`,
  `DROP TABLE sep10_challenges`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
