import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** (Skeleton: filled by the feature's work.) */
const statements: ReadonlyArray<string> = []

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
