import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * API keys of an organization: only the SHA-256 of a key is kept (`key_hash`, looked up on every request), with the
 * user who created it (`creator_sub`, `creator_method`: the key acts as them) and its scopes. Revoking deletes the row.
 */
const statements = [
  `CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name text NOT NULL,
    key_hash bytea NOT NULL UNIQUE,
    scopes text[] NOT NULL,
    creator_sub text NOT NULL,
    creator_method text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz,
    last_used_at timestamptz
  )`,
  `CREATE INDEX api_keys_org ON api_keys (org_id, created_at DESC)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
