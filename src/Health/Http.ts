import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.ts"
import { DatabaseProbe } from "../Sql/DatabaseProbe.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { Health, Liveness, NotReady } from "./Api.ts"
import { Drain } from "../Http/Drain.ts"

const VERSION = "1.0.0"

/** The same answer every time: made (and checked against its schema) once, not per request. */
const alive = Effect.succeed(new Liveness({ status: "ok", version: VERSION }))

const probe = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.timeout("2 seconds"),
    Effect.as("ok" as const),
    Effect.catchAllCause(() => Effect.succeed("unavailable" as const))
  )

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const database = yield* DatabaseProbe
    const rpc = yield* RpcClient
    const drain = yield* Drain
    const rpcHealthy = rpc.getHealth.pipe(Effect.filterOrFail((health) => health.status === "healthy"))

    const readiness = Effect.gen(function*() {
      const [db, rpcState] = yield* Effect.all([probe(database.ping), probe(rpcHealthy)], { concurrency: 2 })
      if (yield* drain.draining) {
        return yield* new NotReady({ error: "shutting down", status: "draining", version: VERSION, db, rpc: rpcState })
      }
      if (db === "unavailable" || rpcState === "unavailable") {
        const error = db === "unavailable" ? "database unavailable" : "Stellar RPC unavailable"
        return yield* new NotReady({ error, status: "degraded", version: VERSION, db, rpc: rpcState })
      }
      return new Health({ status: "ok", version: VERSION, db, rpc: rpcState })
    })

    return handlers
      .handle("health", () => readiness)
      .handle("ready", () => readiness)
      .handle("live", () => alive)
  })).pipe(Layer.provide(DatabaseProbe.Default))
