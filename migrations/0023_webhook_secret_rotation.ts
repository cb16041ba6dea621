import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A webhook endpoint's signing secret can be rotated without a gap: the secret it replaced keeps signing beside the new
 * one until `previous_secret_until`, so each delivery meanwhile carries both signatures (Standard Webhooks: the
 * `webhook-signature` header holds a space-separated list) and a receiver can switch to the new secret at its own pace.
 */
const statements = [
  `ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text, ADD COLUMN previous_secret_until timestamptz`,
  `ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_previous_secret
    CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL))`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
