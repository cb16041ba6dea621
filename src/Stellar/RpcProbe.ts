import { Effect, Layer } from "effect"
import { StellarConfig } from "../Config.ts"
import { messageChain } from "../Observability/MessageChain.ts"
import { RpcClient } from "./RpcClient.ts"

/** Where the RPC is, without what its path or query may carry (a provider's API key). */
const origin = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return "?"
  }
}

/**
 * At start, one `getHealth`: if the Stellar RPC does not answer, or answers unhealthy, one warning says so. The service
 * starts regardless (the probe runs beside the start, never delaying it): what needs the RPC fails until it answers, and
 * readiness (`GET /health`) reports it meanwhile.
 */
export const RpcProbeLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const rpc = yield* RpcClient
    const { rpcUrl } = yield* StellarConfig
    const warn = (why: string) =>
      Effect.logWarning(`the Stellar RPC (STELLAR_RPC_URL) ${why}; starting anyway, /health reports it until it answers`)
        .pipe(Effect.annotateLogs({ rpc: origin(rpcUrl) }))
    yield* rpc.getHealth.pipe(
      Effect.matchEffect({
        onFailure: (error) => warn(`does not answer: ${messageChain(error)}`),
        onSuccess: (health) => (health.status === "healthy" ? Effect.void : warn(`answers, but is ${health.status}`))
      }),
      Effect.forkScoped
    )
  })
)
