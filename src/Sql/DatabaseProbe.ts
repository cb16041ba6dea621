import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Spans from "../Observability/Spans.ts"

/** Whether the database answers a trivial query (readiness). */
export class DatabaseProbe extends Effect.Service<DatabaseProbe>()("Sql/DatabaseProbe", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ping = sql`SELECT 1`.pipe(Effect.asVoid, Spans.withSpan("DatabaseProbe.ping"))
    return { ping } as const
  })
}) {}
