import { Layer } from "effect"
import { Gateway } from "./Gateway.ts"
import { StellarRpcRateLimitLive } from "./RateLimit.ts"
import { Upstream } from "./Upstream.ts"

/** The gateway and its rate limit, wired into the service by src/Server/App.ts. */
export const StellarRpcLive = Layer.mergeAll(Gateway.DefaultWithoutDependencies, StellarRpcRateLimitLive).pipe(
  Layer.provideMerge(Upstream.Default)
)
