import { Effect } from "effect"
import { ok, type Recipe, type Refusal } from "./ConformanceRecipe.ts"

const request = (method: string, params?: unknown) => ({ jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) })

/** The read-only Stellar RPC gateway: any session reads through it; what it refuses is a JSON-RPC error over 200. */
export const stellarRpcRequests: Readonly<Record<string, Recipe>> = {
  "POST /stellar-rpc": (fx) => Effect.map(fx.session(), (token) => ok({ token, json: request("getLatestLedger") })),
  // The same reads without a session, for a disclosure verifier with no account here (/app/verify).
  "POST /stellar-rpc/public": () => Effect.succeed(ok({ json: request("getLatestLedger") }))
}

export const stellarRpcRefusals: Readonly<Record<string, Refusal>> = {
  "POST /stellar-rpc": (fx) =>
    Effect.map(fx.session(), (token) => [
      ["sendTransaction (-32601)", ok({ token, json: request("sendTransaction", { transaction: "AAAA" }) }, 200)],
      ["21 ledger keys (-32602)", ok({ token, json: request("getLedgerEntries", { keys: Array.from({ length: 21 }, () => "AAAA") }) }, 200)]
    ] as const),
  "POST /stellar-rpc/public": () =>
    Effect.succeed([["sendTransaction (-32601)", ok({ json: request("sendTransaction", { transaction: "AAAA" }) }, 200)]] as const)
}
