import { Effect, Option } from "effect"
import { PayloadTooLarge, type UpstreamUnavailable } from "../Domain/Errors.ts"
import { MAX_STELLAR_RPC_BODY_BYTES, MAX_STELLAR_RPC_BODY_KIB } from "../Domain/StellarRpc.ts"
import { Deployment } from "../Crs/Deployment.ts"
import type { TokenDeployment } from "../Crs/DeploymentApi.ts"
import { type CallPolicy, readRequest, type Refused } from "./Requests.ts"
import { Upstream } from "./Upstream.ts"

/** SEP-41 reads of the underlying asset a wallet needs beside the token: its public balance, and what to call it. */
const ASSET_READS: ReadonlySet<string> = new Set(["balance", "symbol"])

/** The token's calls and, once the deployment is read, its registries' and its underlying asset's balance and symbol. */
const policyOf = (token: Option.Option<string>, deployment: Option.Option<TokenDeployment>): CallPolicy =>
  new Map<string, "any" | ReadonlySet<string>>([
    ...Option.toArray(token).map((id) => [id, "any"] as const),
    ...Option.toArray(deployment).flatMap((d) => [
      [d.auditorRegistry, "any"] as const,
      [d.verifierRegistry, "any"] as const,
      [d.underlyingAsset, ASSET_READS] as const
    ])
  ])

/**
 * A read-only Stellar RPC for the browser (POST /stellar-rpc): the wallet in the console reads the confidential token
 * and prepares its own transactions through the service's origin, with `rpc.Server` pointed here. A request the
 * gateway serves is forwarded to STELLAR_RPC_URL and its answer handed back unchanged; any other is answered here
 * with a JSON-RPC error, sendTransaction above all (the service sponsors transfers itself, POST /transfer).
 * Simulations are of the configured token, its registries and its underlying asset's `balance` and `symbol` only
 * (src/Crs/Deployment.ts reads them from the token): the first simulation of a registry may wait for that read.
 */
export class Gateway extends Effect.Service<Gateway>()("StellarRpc/Gateway", {
  effect: Effect.gen(function*() {
    const deployment = yield* Deployment
    const upstream = yield* Upstream
    const token = deployment.token

    /** The request read against what is known of the deployment; read from the chain when it is what is missing. */
    const read = (text: string) =>
      Effect.flatMap(deployment.known, (known) => {
        const request = readRequest(text, policyOf(token, known))
        if (request._tag === "Forward" || request.unnamed !== true || Option.isSome(known)) return Effect.succeed(request)
        return deployment.current.pipe(
          Effect.option,
          Effect.map((read) => readRequest(text, policyOf(token, Option.flatten(read))))
        )
      })

    const refusal = (request: Refused) => JSON.stringify({ jsonrpc: "2.0", id: request.id, error: request.error })

    /** The JSON-RPC answer (a JSON text) to one request body. */
    const answer = (text: string) =>
      Effect.suspend((): Effect.Effect<string, PayloadTooLarge | UpstreamUnavailable> => {
        if (Buffer.byteLength(text) > MAX_STELLAR_RPC_BODY_BYTES) {
          return Effect.fail(new PayloadTooLarge({ error: `request body over ${MAX_STELLAR_RPC_BODY_KIB} KiB` }))
        }
        return Effect.flatMap(read(text), (request) => (request._tag === "Forward" ? upstream.relay(request) : Effect.succeed(refusal(request))))
      })

    return { answer } as const
  }),
  dependencies: [Upstream.Default]
}) {}
