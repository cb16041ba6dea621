import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Indexes for the lookups that had none: the pruning of spent quota rows, faucet grants, finished batch-run jobs and
 * old final submissions (each a range on a time column), the reconciler giving a faucet grant back by its
 * transaction, and the foreign key from submissions to payouts (deleting a payout sets it null).
 */
const statements = [
  `CREATE INDEX sponsor_quota_reserved ON sponsor_quota (reserved_at)`,
  `CREATE INDEX faucet_grants_granted ON faucet_grants (granted_at)`,
  `CREATE INDEX faucet_grants_inner_hash ON faucet_grants (inner_hash)`,
  `CREATE INDEX batch_jobs_finished ON batch_jobs (finished_at) WHERE state = 'done'`,
  `CREATE INDEX submissions_final ON submissions (updated_at) WHERE state IN ('success', 'failed', 'rejected', 'expired')`,
  `CREATE INDEX submissions_payout ON submissions (payout_id) WHERE payout_id IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
