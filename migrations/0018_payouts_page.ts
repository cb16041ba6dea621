import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A batch's payouts are read a page at a time, newest first (`GET /batches/{id}/payouts`); without an index in that
 * order every page found the batch's payouts through the (batch_id, contractor_id) unique index and sorted all of
 * them, up to 1,000 a batch, on every request. The other pages (contractors, batches, deliveries) have theirs.
 */
const statements = [`CREATE INDEX payouts_batch_page ON payouts (batch_id, created_at DESC, id DESC)`]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
