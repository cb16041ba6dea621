import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { StellarConfig } from "../Config.ts"
import { UpstreamUnavailable } from "../Domain/Errors.ts"
import type { StellarRpcId } from "../Domain/StellarRpc.ts"
import { trackRpcCall } from "../Observability/Metrics.ts"
import * as Spans from "../Observability/Spans.ts"
import type { Forward } from "./Requests.ts"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A JSON-RPC 2.0 answer to the request `id`: a result, or an error object with an integer code and a message. */
const answers = (text: string, id: StellarRpcId) => {
  let answer: unknown
  try {
    answer = JSON.parse(text)
  } catch {
    return false
  }
  if (!isRecord(answer) || answer.jsonrpc !== "2.0" || answer.id !== id) return false
  if ("result" in answer) return !("error" in answer)
  const error = answer.error
  return isRecord(error) && Number.isSafeInteger(error.code) && typeof error.message === "string"
}

/**
 * The configured Stellar RPC (STELLAR_RPC_URL) as the gateway reaches it: a checked request forwarded as one JSON-RPC
 * call with the client's own id, and the answer handed back byte for byte once it reads as JSON-RPC's answer to that
 * id. Timed out, counted and traced as the RpcClient's calls are (STELLAR_RPC_TIMEOUT, `stellar_rpc_calls_total`
 * under `gateway.<method>`); unreachable, timed out or answering anything else is 502, which names no upstream detail.
 */
export class Upstream extends Effect.Service<Upstream>()("StellarRpc/Upstream", {
  effect: Effect.gen(function*() {
    const config = yield* StellarConfig
    const http = yield* HttpClient.HttpClient
    const unavailable = (error: string) => new UpstreamUnavailable({ error })

    const relay = (request: Forward) => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: request.id,
        method: request.method,
        ...(request.params === undefined ? {} : { params: request.params })
      })
      return http.execute(HttpClientRequest.post(config.rpcUrl).pipe(HttpClientRequest.bodyText(body, "application/json"))).pipe(
        Effect.mapError(() => unavailable("Stellar RPC could not be reached")),
        Effect.flatMap((response) =>
          response.status === 200
            ? Effect.mapError(response.text, () => unavailable("Stellar RPC's answer could not be read"))
            : Effect.fail(unavailable(`Stellar RPC answered HTTP ${response.status}`))
        ),
        Effect.scoped,
        Effect.filterOrFail((text) => answers(text, request.id), () => unavailable("Stellar RPC gave an answer that is not JSON-RPC's")),
        Effect.timeoutFail({ duration: config.rpcTimeout, onTimeout: () => unavailable("Stellar RPC did not answer in time") }),
        trackRpcCall(`gateway.${request.method}`),
        Spans.withSpan("Upstream.relay", { attributes: { method: request.method } })
      )
    }

    return { relay } as const
  }),
  dependencies: [FetchHttpClient.layer]
}) {}
