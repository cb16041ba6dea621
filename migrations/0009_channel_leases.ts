import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The accounts the service's own transactions take as their source (the faucet's channel accounts, or the faucet
 * account itself), each leased to one grant at a time across every instance. `holder` names the grant holding it
 * (NULL when free) until `lease_until`, which outlasts the transaction's maxTime, so that a channel whose transaction
 * may still land is never given a second one. `sequence` is the last sequence number known to be consumed on the
 * ledger, for an RPC node that has not ingested it yet.
 */
const statements = [
  `CREATE TABLE channel_leases (
    account text PRIMARY KEY,
    holder text,
    inner_hash text,
    lease_until timestamptz NOT NULL DEFAULT 'epoch',
    sequence bigint
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
