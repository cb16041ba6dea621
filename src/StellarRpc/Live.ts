import { Layer } from "effect"
import { Deployment } from "../Crs/Deployment.ts"
import { Gateway } from "./Gateway.ts"
import { StellarRpcRateLimitLive } from "./RateLimit.ts"
import { Upstream } from "./Upstream.ts"

/**
 * The gateway and its rate limit, wired into the service by src/Server/App.ts; with them the token's deployment
 * (src/Crs/Deployment.ts), which the gateway and GET /confidential/deployment share.
 */
export const StellarRpcLive = Layer.mergeAll(Gateway.DefaultWithoutDependencies, StellarRpcRateLimitLive).pipe(
  Layer.provideMerge(Upstream.Default),
  Layer.provideMerge(Deployment.Default)
)
