import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A sealing key belongs to one membership (issue 35 §4). Keys are derived per account and organization
 * (client/src/sealing/SealingKey.ts), so two memberships holding one key means one copied the other's, and envelopes
 * sealed to the copier would open for the key's owner. Before the unique index, a key published by more than one
 * membership stays with whoever published it first; the others are left without a key, to publish their own.
 */
const statements = [
  `UPDATE org_members m SET sealing_key = NULL, sealing_key_at = NULL
    WHERE m.sealing_key IS NOT NULL AND EXISTS (
      SELECT 1 FROM org_members o
      WHERE o.sealing_key = m.sealing_key AND o.id <> m.id
        AND (o.sealing_key_at, o.id) < (m.sealing_key_at, m.id)
    )`,
  `CREATE UNIQUE INDEX org_members_sealing_key ON org_members (sealing_key) WHERE sealing_key IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
