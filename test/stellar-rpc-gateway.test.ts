import { expect, layer } from "@effect/vitest"
import {
  Account,
  Address,
  Asset,
  Contract,
  Keypair,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  StrKey,
  type Transaction,
  TransactionBuilder,
  xdr
} from "@stellar/stellar-sdk"
import { Effect } from "effect"
import fc from "fast-check"
import { createHash, randomBytes } from "node:crypto"
import { ChainReader } from "../client/src/confidential/chain/ChainReader.ts"
import { STELLAR_RPC_METHODS } from "../src/Domain/StellarRpc.ts"
import { call, signIn } from "./support/Client.ts"
import { deploymentOf } from "./support/ConfidentialProving.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { CONFIDENTIAL_TOKEN, TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"

/** Where the loopback keeps the token's registries (LoopbackConfidentialToken derives them from the token's id). */
const registry = (what: "auditor" | "verifier") =>
  StrKey.encodeContract(createHash("sha256").update(`${what} registry of ${CONFIDENTIAL_TOKEN}`).digest())
const AUDITOR = registry("auditor")
const VERIFIER = registry("verifier")
const RATE_LIMIT = 700

/** The SDK's own client, pointed at the gateway with a bearer token, as the console's wallet makes it. */
const gateway = (app: TestAppShape, token: string) =>
  new rpc.Server(`${app.url}/stellar-rpc`, { allowHttp: true, headers: { authorization: `Bearer ${token}` } })

/** What an SDK call threw (the JSON-RPC error object it rethrows), or a failure when it did not throw. */
const thrown = (run: () => Promise<unknown>) =>
  Effect.promise(() => run().then(() => expect.fail("the call succeeded"), (e: unknown) => e as { code: number; message: string }))

const post = (app: TestAppShape, token: string | undefined, body: string) =>
  call(app, "POST", "/stellar-rpc", { ...(token === undefined ? {} : { token }), body, headers: { "content-type": "application/json" } })

const request = (method: string, params?: unknown, id: unknown = 7) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** A read-only call of `fn` on `contract`, built as ChainReader builds its simulations. */
const callOf = (app: TestAppShape, contract: string, fn: string, ...args: ReadonlyArray<xdr.ScVal>): Transaction =>
  new TransactionBuilder(new Account(Keypair.random().publicKey(), "0"), { fee: "100", networkPassphrase: app.rpc.networkPassphrase })
    .addOperation(new Contract(contract).call(fn, ...args)).setTimeout(30).build()

const accountKey = (account: string) =>
  xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(account).xdrPublicKey() })).toXdr("base64")

/** A well-formed JSON-RPC 2.0 answer: `result` or an `error` with an integer code and a message, never both. */
const expectJsonRpc = (status: number, body: any, what: string) => {
  expect(status, what).toBe(200)
  expect(body?.jsonrpc, what).toBe("2.0")
  expect("id" in body, what).toBe(true)
  if ("error" in body) {
    expect("result" in body, what).toBe(false)
    expect(Number.isSafeInteger(body.error.code), what).toBe(true)
    expect(typeof body.error.message, what).toBe("string")
  } else {
    expect("result" in body, what).toBe(true)
  }
}

const settings = {
  CONFIDENTIAL_AUDITOR_CONTRACT: AUDITOR,
  CONFIDENTIAL_VERIFIER_CONTRACT: VERIFIER,
  STELLAR_RPC_RATE_LIMIT: String(RATE_LIMIT),
  STELLAR_RPC_TIMEOUT: "1 second",
  ...privyConfig
}

layer(TestAppLive(settings, { ledgerIntervalMs: 50 }), { timeout: 120_000 })("POST /stellar-rpc", (it) => {
  it.effect("the SDK's rpc.Server, with a wallet session, reads the ledger, the network, an account and the token (ChainReader)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const server = gateway(app, yield* signIn(app, wallet))

      const latest = yield* Effect.promise(() => server.getLatestLedger())
      expect(latest.sequence).toBeGreaterThan(0)
      expect(yield* Effect.promise(() => server.getNetwork())).toMatchObject({ passphrase: app.rpc.networkPassphrase })
      expect((yield* Effect.promise(() => server.getHealth())).status).toBe("healthy")
      const account = yield* Effect.promise(() => server.getAccount(wallet.publicKey()))
      expect(account.accountId()).toBe(wallet.publicKey())
      const missing = yield* thrown(() => server.getAccount(Keypair.random().publicKey()))
      expect(String((missing as unknown as Error).message)).toContain("not found")
      const unknownTx = yield* Effect.promise(() => server.getTransaction(randomBytes(32).toString("hex")))
      expect(unknownTx.status).toBe("NOT_FOUND")

      // The confidential client's own reader, over the gateway, as the console runs it.
      const deployment = deploymentOf(app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN), app.rpc.networkPassphrase)
      expect([deployment.auditorRegistry, deployment.verifierRegistry]).toEqual([AUDITOR, VERIFIER])
      const registered = app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
      const reader = new ChainReader(server, deployment)
      const onChain = yield* Effect.promise(() => reader.account(wallet.publicKey()))
      expect(onChain?.viewingPublicKey).toEqual(registered.viewingPublicKey)
      expect(onChain?.spendingPublicKey).toEqual(registered.spendingPublicKey)
      expect(yield* Effect.promise(() => reader.account(Keypair.random().publicKey()))).toBeUndefined()

      // The registries are simulated too (the loopback has none deployed without a verifier: the host's error comes back).
      const auditor = yield* Effect.promise(() => server.simulateTransaction(callOf(app, AUDITOR, "get_key", xdr.ScVal.scvU32(0))))
      expect(rpc.Api.isSimulationError(auditor)).toBe(true)
    }))

  it.effect("the token's underlying asset (from its instance storage): its balance and symbol are simulated, nothing else of it", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const server = gateway(app, yield* signIn(app, wallet))
      const token = app.rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN)
      token.mintUnderlying(wallet.publicKey(), 1_234_5678900n)
      const asset = token.underlyingAsset
      const holder = Address.fromString(wallet.publicKey()).toScVal()

      const balance = yield* Effect.promise(() => server.simulateTransaction(callOf(app, asset, "balance", holder)))
      expect(rpc.Api.isSimulationSuccess(balance) && scValToNative(balance.result!.retval)).toBe(1_234_5678900n)
      const symbol = yield* Effect.promise(() => server.simulateTransaction(callOf(app, asset, "symbol")))
      expect(rpc.Api.isSimulationSuccess(symbol) && scValToNative(symbol.result!.retval)).toBe("USDC")
      for (const fn of ["transfer", "approve", "decimals"]) {
        const refused = yield* thrown(() => server.simulateTransaction(callOf(app, asset, fn, holder, holder, nativeToScVal(1n, { type: "i128" }))))
        expect(refused.code, fn).toBe(-32602)
        expect(refused.message, fn).toContain(`only balance, symbol of ${asset}`)
      }
      // the registries the token names are simulated as well (here, without a verifier, none is deployed: the host's error)
      const verifier = yield* Effect.promise(() => server.simulateTransaction(callOf(app, VERIFIER, "get_verification_key", xdr.ScVal.scvU32(0))))
      expect(rpc.Api.isSimulationError(verifier)).toBe(true)
    }))

  it.effect("answers are Stellar RPC's, unchanged; an email session and an API key of any scope are served; no session is 401", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const holder = Keypair.random().publicKey()
      app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, holder)
      const simulate = request("simulateTransaction", {
        transaction: callOf(app, CONFIDENTIAL_TOKEN, "confidential_balance", Address.fromString(holder).toScVal()).toXDR()
      })
      const employer = yield* walletEmployer(app, "Gateway Co")
      const through = yield* post(app, employer.token, simulate)
      const direct = yield* Effect.promise(() =>
        fetch(app.rpc.url, { method: "POST", headers: { "content-type": "application/json" }, body: simulate }).then((r) => r.json() as Promise<any>)
      )
      expectJsonRpc(through.status, through.body, "simulate")
      expect(through.body.id).toBe(7)
      const { latestLedger: _a, ...viaGateway } = through.body.result
      const { latestLedger: _b, ...viaRpc } = direct.result
      expect(viaGateway).toEqual(viaRpc)
      expect(through.headers.get("content-type")).toContain("application/json")

      const email = yield* Effect.flatMap(privyToken({ sub: "did:privy:gateway" }), (token) =>
        call(app, "POST", "/auth/privy", { json: { token } }))
      expect(email.status).toBe(200)
      const latest = request("getLatestLedger", null, "email")
      const byEmail = yield* post(app, email.body.token, latest)
      expectJsonRpc(byEmail.status, byEmail.body, "email session")
      expect(byEmail.body).toMatchObject({ id: "email", result: { sequence: expect.any(Number) } })

      const key = yield* call(app, "POST", "/api-keys", { token: employer.token, json: { name: "Prover", scopes: ["batches:read"] } })
      expect(key.status).toBe(200)
      const byKey = yield* post(app, key.body.key, latest)
      expectJsonRpc(byKey.status, byKey.body, "API key")

      for (const [what, token] of [["none", undefined], ["not a session", "not-a-token"]] as const) {
        const refused = yield* post(app, token, latest)
        expect(refused.status, what).toBe(401)
        expect(typeof refused.body.error, what).toBe("string")
      }
    }))

  it.effect("sendTransaction and every other method are -32601 and never reach Stellar RPC; other contracts, ledger keys and shapes are -32602", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const token = yield* signIn(app, wallet)
      const server = gateway(app, token)
      const tx = callOf(app, CONFIDENTIAL_TOKEN, "confidential_balance", Address.fromString(wallet.publicKey()).toScVal())
      tx.sign(wallet)
      app.rpc.resetCalls()
      const sent = yield* thrown(() => server.sendTransaction(tx))
      expect(sent).toMatchObject({ code: -32601, message: "method not found" })
      for (const method of ["sendTransaction", "getFeeStats", "getLedgers", "getTransactions", "getVersionInfo", "rpc.discover", ""]) {
        const answer = yield* post(app, token, request(method, {}))
        expectJsonRpc(answer.status, answer.body, method)
        expect(answer.body.error.code, method).toBe(method === "" ? -32600 : -32601)
      }
      const refusedMethods = new Set(["sendTransaction", "getFeeStats", "getLedgers", "getTransactions", "getVersionInfo", "rpc.discover", ""])
      expect(app.rpc.calls.filter((c) => refusedMethods.has(c.method))).toEqual([])

      const other = StrKey.encodeContract(randomBytes(32))
      const elsewhere = yield* thrown(() => server.simulateTransaction(callOf(app, other, "balance", Address.fromString(wallet.publicKey()).toScVal())))
      expect(elsewhere.code).toBe(-32602)
      expect(elsewhere.message).toContain(CONFIDENTIAL_TOKEN)

      const simulateOf = (build: (b: TransactionBuilder) => TransactionBuilder) =>
        build(new TransactionBuilder(new Account(wallet.publicKey(), "1"), { fee: "100", networkPassphrase: app.rpc.networkPassphrase }))
          .setTimeout(30).build().toXDR()
      const token_ = new Contract(CONFIDENTIAL_TOKEN)
      const feeBump = TransactionBuilder.buildFeeBumpTransaction(wallet, "200", tx, app.rpc.networkPassphrase).toXDR()
      const trustline = xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({
        accountId: wallet.xdrPublicKey(),
        asset: xdr.TrustLineAsset.assetTypeNative()
      })).toXdr("base64")
      const ttl = xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: randomBytes(32) })).toXdr("base64")
      const refusals: ReadonlyArray<readonly [string, string, unknown]> = [
        ["two operations", "simulateTransaction", { transaction: simulateOf((b) => b.addOperation(token_.call("name")).addOperation(token_.call("name"))) }],
        ["a payment", "simulateTransaction", { transaction: simulateOf((b) => b.addOperation(Operation.payment({ destination: wallet.publicKey(), asset: Asset.native(), amount: "1" }))) }],
        ["a fee-bump", "simulateTransaction", { transaction: feeBump }],
        ["not XDR", "simulateTransaction", { transaction: "AAAA" }],
        ["an unknown member", "simulateTransaction", { transaction: tx.toXDR(), extra: 1 }],
        ["an auth mode of its own", "simulateTransaction", { transaction: tx.toXDR(), authMode: "lenient" }],
        ["no keys", "getLedgerEntries", { keys: [] }],
        ["21 keys", "getLedgerEntries", { keys: Array.from({ length: 21 }, () => accountKey(wallet.publicKey())) }],
        ["a trustline key", "getLedgerEntries", { keys: [trustline] }],
        ["a TTL key", "getLedgerEntries", { keys: [ttl] }],
        ["not base64", "getLedgerEntries", { keys: ["!!!!"] }],
        ["a short hash", "getTransaction", { hash: "abc" }],
        ["events of another contract", "getEvents", { startLedger: 1, filters: [{ type: "contract", contractIds: [other] }] }],
        ["events of no contract named", "getEvents", { startLedger: 1, filters: [{ type: "contract" }] }],
        ["system events", "getEvents", { startLedger: 1, filters: [{ type: "system", contractIds: [CONFIDENTIAL_TOKEN] }] }],
        ["six filters", "getEvents", { startLedger: 1, filters: Array.from({ length: 6 }, () => ({ contractIds: [CONFIDENTIAL_TOKEN] })) }],
        ["parameters where none are taken", "getLatestLedger", { ledger: 1 }],
        ["params of the wrong type", "getLedgerEntries", "keys"]
      ]
      for (const [what, method, params] of refusals) {
        const answer = yield* post(app, token, request(method, params, what))
        expectJsonRpc(answer.status, answer.body, what)
        expect(answer.body, what).toMatchObject({ id: what, error: { code: -32602, message: expect.stringContaining("invalid params") } })
      }
      const allowed = yield* post(app, token, request("getLedgerEntries", { keys: Array.from({ length: 20 }, () => accountKey(wallet.publicKey())) }))
      expect(allowed.body.result.entries.length).toBeGreaterThan(0)
      // The token's events are read, as a disclosure verifier reads a registry's rotations (the SDK's getEvents).
      const events = yield* Effect.promise(() => server.getEvents({ startLedger: 1, filters: [{ type: "contract", contractIds: [CONFIDENTIAL_TOKEN] }], limit: 10 }))
      expect(events.latestLedger).toBeGreaterThan(0)
    }))

  it.effect("malformed JSON, batches, notifications and broken envelopes are JSON-RPC errors; over 64 KiB is 413; Stellar RPC's errors pass, its faults are 502", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = yield* signIn(app)
      const raw: ReadonlyArray<readonly [string, string, number, unknown]> = [
        ["malformed JSON", "{\"jsonrpc\": ", -32700, null],
        ["empty body", "", -32700, null],
        ["nested 65 deep", `${"[".repeat(65)}${"]".repeat(65)}`, -32700, null],
        ["a batch", `[${request("getLatestLedger")}]`, -32600, null],
        ["a notification", JSON.stringify({ jsonrpc: "2.0", method: "getLatestLedger" }), -32600, null],
        ["a null id", JSON.stringify({ jsonrpc: "2.0", id: null, method: "getLatestLedger" }), -32600, null],
        ["an id of another type", JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "getLatestLedger" }), -32600, null],
        ["a fractional id", JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "getLatestLedger" }), -32600, null],
        ["version 1.0", JSON.stringify({ jsonrpc: "1.0", id: 3, method: "getLatestLedger" }), -32600, 3],
        ["no method", JSON.stringify({ jsonrpc: "2.0", id: 4 }), -32600, 4],
        ["an extra member", JSON.stringify({ jsonrpc: "2.0", id: 5, method: "getLatestLedger", auth: "x" }), -32600, 5],
        ["a string", "\"getLatestLedger\"", -32600, null],
        ["NUL in a string", "{\"jsonrpc\": \"2.0\", \"id\": \"a\\u0000b\", \"method\": \"getLatestLedger\"}", 0, "a\u0000b"]
      ]
      for (const [what, body, code, id] of raw) {
        const answer = yield* post(app, token, body)
        expectJsonRpc(answer.status, answer.body, what)
        expect(answer.body.id, what).toEqual(id)
        if (code === 0) expect(answer.body.result, what).toBeDefined()
        else expect(answer.body.error.code, what).toBe(code)
      }

      const large = yield* post(app, token, request("getLedgerEntries", { keys: ["A".repeat(70 * 1024)] }))
      expect(large.status).toBe(413)
      expect(large.body.error).toContain("64 KiB")

      app.rpc.setFault({ kind: "rpcError", code: -32603, message: "ledger store unavailable" }, { methods: ["getNetwork"], times: 1 })
      const upstreamError = yield* post(app, token, request("getNetwork", null, "up"))
      expect(upstreamError.body).toEqual({ jsonrpc: "2.0", id: "up", error: { code: -32603, message: "ledger store unavailable" } })
      for (const fault of [{ kind: "http500" }, { kind: "hang" }, { kind: "drop" }] as const) {
        app.rpc.setFault(fault, { methods: ["getNetwork"], times: 1 })
        const down = yield* post(app, token, request("getNetwork"))
        expect(down.status, fault.kind).toBe(502)
        expect(down.body, fault.kind).toMatchObject({ _tag: "UpstreamUnavailable", error: expect.stringContaining("Stellar RPC") })
        expect(JSON.stringify(down.body), fault.kind).not.toContain(app.rpc.url)
      }
    }))

  it.effect("hostile envelopes (fast-check): every answer is a well-formed JSON-RPC result or error, echoing a readable id, never a 500", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const token = yield* signIn(app, wallet)
      const balance = callOf(app, CONFIDENTIAL_TOKEN, "confidential_balance", Address.fromString(wallet.publicKey()).toScVal()).toXDR()
      const elsewhere = callOf(app, StrKey.encodeContract(randomBytes(32)), "balance").toXDR()
      const b64 = fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("base64"))
      const ids = fc.oneof(fc.integer(), fc.string({ maxLength: 140 }), fc.constant(null), fc.double(), fc.boolean(), fc.jsonValue())
      const methods = fc.oneof(fc.constantFrom(...STELLAR_RPC_METHODS, "sendTransaction", "getEvents", "__proto__", "constructor", ""), fc.string())
      const keys = fc.array(fc.oneof(fc.constant(accountKey(wallet.publicKey())), b64, fc.string(), fc.jsonValue()), { maxLength: 24 })
      const params = fc.oneof(
        fc.jsonValue(),
        fc.record({ keys, xdrFormat: fc.constantFrom("base64", "json", "xml") }, { requiredKeys: ["keys"] }),
        fc.record({
          transaction: fc.oneof(fc.constantFrom(balance, elsewhere, balance.slice(0, -8)), b64, fc.string()),
          authMode: fc.constantFrom("enforce", "record", "nope"),
          resourceConfig: fc.oneof(fc.record({ instructionLeeway: fc.integer() }), fc.jsonValue()),
          useUpgradedAuth: fc.jsonValue()
        }, { requiredKeys: ["transaction"] }),
        fc.record({ hash: fc.oneof(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString("hex")), fc.string()) })
      )
      const envelope = fc.record(
        { jsonrpc: fc.oneof(fc.constant("2.0"), fc.string()), id: ids, method: methods, params, extra: fc.jsonValue() },
        { requiredKeys: ["jsonrpc", "id", "method"] }
      )
      const bodies = fc.oneof(
        { weight: 6, arbitrary: envelope.map((e) => JSON.stringify(e)) },
        { weight: 1, arbitrary: fc.array(envelope, { maxLength: 3 }).map((e) => JSON.stringify(e)) },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? "") },
        { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
        { weight: 1, arbitrary: envelope.map((e) => JSON.stringify(e)).chain((t) => fc.nat({ max: t.length }).map((n) => t.slice(0, n))) }
      )
      const statuses: Array<number> = []
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(bodies, async (body) => {
            const answer = await Effect.runPromise(post(app, token, body))
            statuses.push(answer.status)
            expectJsonRpc(answer.status, answer.body, body.slice(0, 300))
            let sent: any
            try {
              sent = JSON.parse(body)
            } catch {
              sent = undefined
            }
            const readable = sent !== null && typeof sent === "object" && !Array.isArray(sent) &&
              (typeof sent.id === "string" ? sent.id.length <= 128 : Number.isSafeInteger(sent.id))
            if (answer.body.id !== null) expect(readable && answer.body.id === sent.id, body.slice(0, 300)).toBe(true)
          }),
          { numRuns: 150, seed: 7 }
        )
      )
      expect(statuses.length).toBeGreaterThanOrEqual(150)
      expect(app.rpc.calls.some((c) => c.method === "sendTransaction")).toBe(false)
    }))

  it.effect(`past STELLAR_RPC_RATE_LIMIT per client address (${RATE_LIMIT} here): 429 with Retry-After; every answer says the policy`, () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const first = yield* post(app, undefined, request("getLatestLedger"))
      expect(first.headers.get("ratelimit-policy")).toBe(`"stellar-rpc";q=${RATE_LIMIT};w=60`)
      const remaining = Number(/r=(\d+)/.exec(first.headers.get("ratelimit") ?? "")?.[1])
      expect(remaining).toBeLessThan(RATE_LIMIT)
      yield* Effect.forEach(Array.from({ length: remaining }), () => post(app, undefined, request("getLatestLedger")), { concurrency: 8, discard: true })
      const limited = yield* post(app, yield* signIn(app), request("getLatestLedger"))
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(limited.body.error).toContain("too many Stellar RPC requests")
    }))
})
