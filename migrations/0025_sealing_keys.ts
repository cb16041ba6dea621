import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sealed amounts (issue 31 §1): the service stores only what it cannot open.
 *
 * - `org_members.sealing_key`: the member's published HPKE public key (X25519, base64url), one per membership,
 *   derived in their browser from their wallet; replaced when they publish another.
 * - `batch_sealed_amounts`: one opaque envelope per batch (its amounts, sealed to the members who may read them) and
 *   the digest the service computed over its nonce and ciphertext; the recipients are outside the digest, so sharing
 *   with a later member keeps the batch's approvals.
 * - `batch_approvals.sealed_amounts_digest`: the digest an approval was given for.
 */
const statements = [
  `ALTER TABLE org_members ADD COLUMN sealing_key text`,
  `ALTER TABLE org_members ADD COLUMN sealing_key_at timestamptz`,
  `CREATE TABLE batch_sealed_amounts (
    batch_id uuid PRIMARY KEY REFERENCES batches (id) ON DELETE CASCADE,
    envelope jsonb NOT NULL,
    digest text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    updated_at timestamptz NOT NULL,
    updated_by text NOT NULL
  )`,
  `ALTER TABLE batch_approvals ADD COLUMN sealed_amounts_digest text`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
