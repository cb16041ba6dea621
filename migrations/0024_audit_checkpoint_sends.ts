import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * When each organization's audit checkpoint was last sent to its webhooks (`audit.checkpoint`): the instances share it,
 * so that one of them sends each interval's checkpoint and none sends it twice (src/Audit/CheckpointSender.ts).
 */
const statements = [
  `CREATE TABLE audit_checkpoint_sends (
    org_id uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    sent_at timestamptz NOT NULL
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
