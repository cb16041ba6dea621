import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * (Skeleton.) The events outbox: a feature writes an event in the same transaction as the state change it reports;
 * the webhooks feature delivers them.
 */
export class Outbox extends Effect.Service<Outbox>()("Sql/Outbox", {
  effect: Effect.gen(function*() {
    yield* SqlClient.SqlClient
    return {} as const
  })
}) {}
