import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { PayloadTooLarge, UpstreamUnavailable } from "../Domain/Errors.ts"
import { MAX_LEDGER_KEYS, MAX_STELLAR_RPC_BODY_KIB, StellarRpcRequest, StellarRpcResponse } from "../Domain/StellarRpc.ts"
import { StellarRpcRateLimit } from "./RateLimitTag.ts"

export class StellarRpcApi extends HttpApiGroup.make("stellarRpc")
  .add(
    HttpApiEndpoint.post("call", "/stellar-rpc")
      .setPayload(StellarRpcRequest)
      .addSuccess(StellarRpcResponse)
      .addError(PayloadTooLarge)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Summary, "Call Stellar RPC (read-only)")
      .annotate(
        OpenApi.Description,
        "A same-origin, read-only Stellar RPC for the browser's wallet: point the Stellar SDK's `rpc.Server` here " +
          "(`new rpc.Server(origin + \"/stellar-rpc\", { headers: { authorization: \"Bearer <token>\" } })`) to read " +
          "the confidential token by simulation and prepare transactions. One JSON-RPC 2.0 request a call, answered " +
          "as stellar-rpc answers it (HTTP 200 with `result` or `error`) and forwarded to the service's Stellar RPC " +
          "(`STELLAR_RPC_URL`), whose `result` or `error` comes back unchanged. Served: `getHealth`, `getNetwork`, " +
          `\`getLatestLedger\`, \`getLedgerEntries\` (1 to ${MAX_LEDGER_KEYS} account, contract data or contract code ` +
          "keys), `simulateTransaction` (a v1 transaction whose one operation calls the confidential token " +
          "(`CONFIDENTIAL_TOKEN_CONTRACT`), the auditor or verifier registry it names in its instance storage, or " +
          "`balance` or `symbol` of its underlying asset), `getTransaction`, and `getEvents` (1 to 5 contract-event filters " +
          "naming only those contracts). Any other method, `sendTransaction` above all " +
          "(POST /transfer submits), is error -32601; parameters it refuses -32602; a batch, a notification or extra " +
          "members -32600; a body that is not JSON -32700. For any session (wallet or email, member, contractor or " +
          "neither) or API key; limited per client address (`STELLAR_RPC_RATE_LIMIT` per `STELLAR_RPC_RATE_WINDOW`: " +
          `429 past it, with \`Retry-After\`). 413 for a body over ${MAX_STELLAR_RPC_BODY_KIB} KiB; 502 when Stellar ` +
          "RPC cannot be reached, does not answer within `STELLAR_RPC_TIMEOUT`, or answers anything but JSON-RPC."
      )
  )
  .middlewareEndpoints(Authentication)
  .add(
    HttpApiEndpoint.post("publicCall", "/stellar-rpc/public")
      .setPayload(StellarRpcRequest)
      .addSuccess(StellarRpcResponse)
      .addError(PayloadTooLarge)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Summary, "Call Stellar RPC (read-only, no session)")
      .annotate(
        OpenApi.Description,
        "POST /stellar-rpc without a session, for a disclosure verifier that has no account here (the console's " +
          "/app/verify page): the same methods and the same contracts, answered the same way, counted against the " +
          "same per-client-address limit. A verifier may point its rpc.Server at any other Stellar RPC instead."
      )
  )
  // Endpoint middlewares wrap in the order given: the count stays outside the session check, as it was.
  .middlewareEndpoints(StellarRpcRateLimit)
  .annotate(OpenApi.Title, "Stellar RPC")
  .annotate(
    OpenApi.Description,
    "Read-only Stellar RPC through the service's own origin, for the web console's wallet (its Content-Security-Policy " +
      "allows no other origin)."
  )
{}
