import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sealed receipts (issue 31 §2): each sent payout's receipt (amount, r_e, σ), sealed in the browser to the members who
 * may read amounts, in the envelope of a batch's sealed amounts (migration 0025). One per payout; the service stores
 * it with the digest it computed over its nonce and ciphertext, and never opens it. Read a batch at a time for
 * reconciliation, newest first (`created_at`, `payout_id`).
 */
const statements = [
  `CREATE TABLE payout_sealed_receipts (
    payout_id uuid PRIMARY KEY REFERENCES payouts (id) ON DELETE CASCADE,
    batch_id uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    envelope jsonb NOT NULL,
    digest text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by text NOT NULL
  )`,
  `CREATE INDEX payout_sealed_receipts_batch ON payout_sealed_receipts (batch_id, created_at DESC, payout_id DESC)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
