import { Effect, Option } from "effect"
import { StellarConfig } from "../Config.ts"
import { PayloadTooLarge, type UpstreamUnavailable } from "../Domain/Errors.ts"
import { MAX_STELLAR_RPC_BODY_BYTES, MAX_STELLAR_RPC_BODY_KIB } from "../Domain/StellarRpc.ts"
import { DeploymentConfig } from "../Crs/DeploymentConfig.ts"
import { readRequest } from "./Requests.ts"
import { Upstream } from "./Upstream.ts"

/**
 * A read-only Stellar RPC for the browser (POST /stellar-rpc): the wallet in the console reads the confidential token
 * and prepares its own transactions through the service's origin, with `rpc.Server` pointed here. A request the
 * gateway serves is forwarded to STELLAR_RPC_URL and its answer handed back unchanged; any other is answered here
 * with a JSON-RPC error, sendTransaction above all (the service sponsors transfers itself, POST /transfer).
 * Simulations are of the configured token and its registries only (src/Crs/DeploymentConfig.ts names them).
 */
export class Gateway extends Effect.Service<Gateway>()("StellarRpc/Gateway", {
  effect: Effect.gen(function*() {
    const { confidentialTokenContract } = yield* StellarConfig
    const deployment = yield* DeploymentConfig
    const upstream = yield* Upstream
    // The token and, when the deployment names them, the registries it calls (their get_key, get_verification_key).
    const contracts: ReadonlySet<string> = new Set(Option.match(deployment, {
      onNone: () => Option.toArray(confidentialTokenContract),
      onSome: (d) => [d.contract, d.auditorRegistry, d.verifierRegistry]
    }))

    /** The JSON-RPC answer (a JSON text) to one request body. */
    const answer = (text: string) =>
      Effect.suspend((): Effect.Effect<string, PayloadTooLarge | UpstreamUnavailable> => {
        if (Buffer.byteLength(text) > MAX_STELLAR_RPC_BODY_BYTES) {
          return Effect.fail(new PayloadTooLarge({ error: `request body over ${MAX_STELLAR_RPC_BODY_KIB} KiB` }))
        }
        const request = readRequest(text, contracts)
        if (request._tag === "Forward") return upstream.relay(request)
        return Effect.succeed(JSON.stringify({ jsonrpc: "2.0", id: request.id, error: request.error }))
      })

    return { answer } as const
  }),
  dependencies: [Upstream.Default]
}) {}
