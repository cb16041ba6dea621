import { HttpApiMiddleware } from "@effect/platform"
import { RateLimited } from "../Domain/Errors.ts"

// The middleware's tag apart from its implementation (RateLimit.ts): the contract (Api.ts) names it, and the contract
// is what the client package and the console bundle, so it must not reach the server's rate limiter.
/**
 * Requests per client address on POST /stellar-rpc, counted across every instance under `stellar-rpc:<client>`:
 * 429 with Retry-After past STELLAR_RPC_RATE_LIMIT per STELLAR_RPC_RATE_WINDOW. Each request may cost Stellar RPC a
 * simulation, so the count comes before the session is looked at.
 */
export class StellarRpcRateLimit extends HttpApiMiddleware.Tag<StellarRpcRateLimit>()("StellarRpc/StellarRpcRateLimit", {
  failure: RateLimited
}) {}
