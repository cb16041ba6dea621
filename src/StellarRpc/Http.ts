import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Gateway } from "./Gateway.ts"

/** The body is read here, raw: a request that is not JSON, or not one the gateway serves, is answered in JSON-RPC. */
export const StellarRpcHttpLive = HttpApiBuilder.group(Api, "stellarRpc", (handlers) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const call = ({ request }: { readonly request: HttpServerRequest.HttpServerRequest }) =>
      request.text.pipe(
        Effect.orDie,
        Effect.flatMap(gateway.answer),
        Effect.map((body) => HttpServerResponse.text(body, { contentType: "application/json" }))
      )
    return handlers.handleRaw("call", call).handleRaw("publicCall", call)
  }))
