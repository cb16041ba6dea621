import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { Health, ServiceUnavailable } from "./Api.ts"

const VERSION = "1.0.0"

const probe = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.timeout("2 seconds"),
    Effect.as("ok" as const),
    Effect.catchAllCause(() => Effect.succeed("unavailable" as const))
  )

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rpc = yield* RpcClient
    return handlers.handle("health", () =>
      Effect.gen(function*() {
        const [db, rpcState] = yield* Effect.all([probe(sql`SELECT 1`), probe(rpc.getHealth)], { concurrency: 2 })
        if (db === "unavailable") {
          return yield* new ServiceUnavailable({ error: "database unavailable", version: VERSION, db, rpc: rpcState })
        }
        return new Health({ status: rpcState === "ok" ? "ok" : "degraded", version: VERSION, db, rpc: rpcState })
      }))
  }))
