import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * How many reconciler rounds in a row could not settle a submission (Stellar RPC unreachable, or an answer that
 * could not be read): its lease is kept that many times longer (doubling, bounded), so one poisoned submission
 * waits while the others are settled. Reset once a round understands the network's answer.
 */
const statements = [
  `ALTER TABLE submissions ADD COLUMN reconcile_failures integer NOT NULL DEFAULT 0`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
