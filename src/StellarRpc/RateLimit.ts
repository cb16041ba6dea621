import { Effect, Layer } from "effect"
import { perClientLimit } from "../RateLimit/PerClientLimit.ts"
import { makeRateWindow } from "../RateLimit/RateWindow.ts"
import { StellarRpcConfig } from "./Config.ts"
import { StellarRpcRateLimit } from "./RateLimitTag.ts"

/** STELLAR_RPC_RATE_LIMIT per STELLAR_RPC_RATE_WINDOW per client address, counted in PostgreSQL as every limit is. */
export const StellarRpcRateLimitLive = Layer.effect(
  StellarRpcRateLimit,
  Effect.gen(function*() {
    const { rateLimit, rateWindow } = yield* StellarRpcConfig
    const limiter = yield* makeRateWindow(rateLimit, rateWindow)
    return yield* perClientLimit({ policy: "stellar-rpc", limiter, tooMany: "Stellar RPC requests" })
  })
)
