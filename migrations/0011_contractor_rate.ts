import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A contractor's rate as one jsonb column `{amount, currency}`, as the entity has it (Domain/Contractor.ts), in place
 * of the two columns it was split into.
 */
const statements = [
  `ALTER TABLE contractors ADD COLUMN rate jsonb CHECK (rate IS NULL OR rate->>'currency' = 'USDC')`,
  `UPDATE contractors SET rate = jsonb_build_object('amount', rate_amount, 'currency', rate_currency) WHERE rate_amount IS NOT NULL`,
  `ALTER TABLE contractors DROP COLUMN rate_amount, DROP COLUMN rate_currency`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
