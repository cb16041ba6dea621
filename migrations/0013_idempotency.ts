import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Idempotency keys (the IETF draft "The Idempotency-Key HTTP Header Field"), one row per caller and key, shared by
 * every instance: while a request runs, its claim (`owner`, a lease in `locked_until`); once answered, the answer
 * (`status`, `headers`, `body`) replayed to a retry with the same fingerprint until `expires_at`.
 */
const statements = [
  `CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    owner text,
    locked_until timestamptz,
    status integer,
    headers jsonb,
    body bytea,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
  )`,
  `CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
