// POST /stellar-rpc/public (issue 37 §3): the read-only gateway without a session, for a disclosure verifier that has
// no account here (/app/verify). The same methods and contracts as POST /stellar-rpc — a verifier reads an event by
// its transaction, an account's record and the token's instance — sendTransaction still refused, and the same
// per-address count (a request here and one to POST /stellar-rpc draw on one limit).
import { expect, layer } from "@effect/vitest"
import { rpc } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { ChainReader } from "../client/src/confidential/chain/ChainReader.ts"
import { readDeployment } from "../client/src/confidential/chain/ReadDeployment.ts"
import { call } from "./support/Client.ts"
import { REGISTRIES } from "./support/ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"

const RATE_LIMIT = 40
const settings = {
  CONFIDENTIAL_AUDITOR_CONTRACT: REGISTRIES.auditorRegistry,
  CONFIDENTIAL_VERIFIER_CONTRACT: REGISTRIES.verifierRegistry,
  STELLAR_RPC_RATE_LIMIT: String(RATE_LIMIT)
}
const request = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) })

layer(TestAppLive(settings, { ledgerIntervalMs: 50 }), { timeout: 120_000 })("POST /stellar-rpc/public", (it) => {
  it.effect("answers the SDK's reads without a session: the network, the token's instance, an unregistered account", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const server = new rpc.Server(`${app.url}/stellar-rpc/public`, { allowHttp: true })
      expect((yield* Effect.promise(() => server.getNetwork())).passphrase).toBe(app.rpc.networkPassphrase)
      const deployment = yield* Effect.promise(() => readDeployment(server, CONFIDENTIAL_TOKEN, app.rpc.networkPassphrase))
      expect(deployment.auditorRegistry).toBe(REGISTRIES.auditorRegistry)
      const reader = new ChainReader(server, deployment)
      expect(yield* Effect.promise(() => reader.account("GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO"))).toBeUndefined()
      const missing = yield* Effect.promise(() => server.getTransaction("ab".repeat(32)))
      expect(missing.status).toBe("NOT_FOUND")
    }))

  it.effect("refuses sendTransaction as POST /stellar-rpc does, and counts against the same per-address limit", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const post = (path: string, body: string) => call(app, "POST", path, { body, headers: { "content-type": "application/json" } })
      const refused = yield* post("/stellar-rpc/public", request("sendTransaction", { transaction: "AAAA" }))
      expect(refused.body.error.code).toBe(-32601)
      expect(refused.headers.get("ratelimit-policy")).toBe(`"stellar-rpc";q=${RATE_LIMIT};w=60`)
      const remaining = Number(/r=(\d+)/.exec(refused.headers.get("ratelimit") ?? "")?.[1])
      yield* Effect.forEach(Array.from({ length: remaining }), () => post("/stellar-rpc", request("getLatestLedger")), { concurrency: 4, discard: true })
      const limited = yield* post("/stellar-rpc/public", request("getLatestLedger"))
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    }))
})
