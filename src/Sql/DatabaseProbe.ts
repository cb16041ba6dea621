import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Whether the database answers a trivial query (readiness). */
export class DatabaseProbe extends Effect.Service<DatabaseProbe>()("Sql/DatabaseProbe", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ping = sql`SELECT 1`.pipe(Effect.asVoid, Effect.withSpan("DatabaseProbe.ping"))
    return { ping } as const
  })
}) {}
