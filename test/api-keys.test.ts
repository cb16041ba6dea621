import { expect, layer } from "@effect/vitest"
import { HttpApi } from "@effect/platform"
import { Keypair } from "@stellar/stellar-sdk"
import { Console, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import pg from "pg"
import { Api } from "../src/Api.ts"
import { routeScopes } from "../src/Auth/Scopes.ts"
import { call, signIn } from "./support/Client.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { TestApp, type TestAppShape, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"

/** Every line the service's logger writes, instead of the console. */
const lines: Array<string> = []
const CapturedConsole = Layer.unwrapEffect(
  Effect.map(Effect.console, (base) =>
    Console.setConsole({ ...base, unsafe: { ...console, log: (...args: ReadonlyArray<unknown>) => void lines.push(args.map(String).join(" ")) } }))
)

const AppLive = TestAppLive({ ...privyConfig, LOG_FORMAT: "json", LOG_LEVEL: "debug" }, { ledgerIntervalMs: 20 }).pipe(
  Layer.provide(CapturedConsole)
)

const createKey = (app: TestAppShape, token: string, body: Record<string, unknown>) =>
  Effect.map(call(app, "POST", "/api-keys", { token, json: { name: "Runner", ...body } }), (r) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body as { id: string; key: string; name: string; scopes: Array<string>; createdAt: string; expiresAt: string | null }
  })

const query = <A>(app: TestAppShape, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: app.config.DATABASE_URL })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.query(text, [...values]).then((r) => r.rows as Array<A>)),
    (client) => Effect.promise(() => client.end())
  )

layer(AppLive, { timeout: 60_000 })("API keys", (it) => {
  it.effect("every operation of the scope table is one of the API's", () =>
    Effect.sync(() => {
      const operations = new Set<string>()
      HttpApi.reflect(Api, { onGroup: () => undefined, onEndpoint: ({ endpoint }) => void operations.add(`${endpoint.method} ${endpoint.path}`) })
      for (const operation of Object.keys(routeScopes)) expect(operations, operation).toContain(operation)
    }))

  it.effect("created, listed and revoked; the key is shown once and only its SHA-256 is stored", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* walletEmployer(app, "Keys Co")
      const created = yield* createKey(app, boss.token, { scopes: ["directory:read", "directory:read"] })
      expect(created.key).toMatch(/^cpk_[A-Za-z0-9_-]{43}$/)
      expect(created).toMatchObject({ name: "Runner", scopes: ["directory:read"], expiresAt: null })

      const listed = yield* call(app, "GET", "/api-keys", { token: boss.token })
      expect(listed.status).toBe(200)
      expect(listed.body.items).toEqual([{ id: created.id, name: "Runner", scopes: ["directory:read"], createdAt: created.createdAt, expiresAt: null, role: null, allowedCidrs: [], lastUsedAt: null }])
      expect(JSON.stringify(listed.body)).not.toContain(created.key)

      const rows = yield* query<Record<string, unknown>>(app, "SELECT * FROM api_keys WHERE id = $1", [created.id])
      expect(rows).toHaveLength(1)
      expect((rows[0]!.key_hash as Buffer).equals(createHash("sha256").update(created.key).digest())).toBe(true)
      expect(JSON.stringify(rows[0])).not.toContain(created.key.slice(4))

      // Another organization sees none of it.
      const other = yield* walletEmployer(app, "Other Co")
      expect((yield* call(app, "GET", "/api-keys", { token: other.token })).body.items).toEqual([])
      expect((yield* call(app, "DELETE", `/api-keys/${created.id}`, { token: other.token })).status).toBe(404)

      expect((yield* call(app, "DELETE", `/api-keys/${created.id}`, { token: boss.token })).status).toBe(204)
      expect((yield* call(app, "GET", "/api-keys", { token: boss.token })).body.items).toEqual([])
      expect((yield* call(app, "DELETE", `/api-keys/${created.id}`, { token: boss.token })).status).toBe(404)
    }))

  it.effect("a session of no organization cannot create keys; a key cannot manage keys nor use unmapped routes", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* walletEmployer(app, "Scoped Co")
      const { key } = yield* createKey(app, boss.token, { scopes: ["directory:read", "directory:write", "batches:read", "batches:write", "transfers:submit", "funding:read"] })
      for (const [method, path] of [["GET", "/api-keys"], ["POST", "/api-keys"], ["GET", "/me"], ["POST", "/orgs/invites"], ["POST", "/funding/faucet"]] as const) {
        const reply = yield* call(app, method, path, { token: key, json: method === "POST" ? { name: "x", scopes: ["batches:read"] } : undefined })
        expect(reply.status, `${method} ${path}`).toBe(403)
      }
      const lonely = yield* call(app, "POST", "/api-keys", { token: yield* signIn(app), json: { name: "x", scopes: ["batches:read"] } })
      expect(lonely.status).toBe(403)
    }))

  it.effect("a directory:read key reads the directory and is 403 on batches:write routes", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* walletEmployer(app, "Directory Co")
      const added = yield* call(app, "POST", "/contractors", { token: boss.token, json: { name: "Ada Lovelace" } })
      expect(added.status).toBe(200)
      const { id, key } = yield* createKey(app, boss.token, { scopes: ["directory:read"] })
      const list = yield* call(app, "GET", "/contractors", { token: key })
      expect(list.status).toBe(200)
      expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([added.body.id])
      expect((yield* call(app, "GET", `/contractors/${added.body.id}`, { token: key })).status).toBe(200)
      expect((yield* call(app, "POST", "/batches", { token: key, json: { name: "December" } })).status).toBe(403)
      expect((yield* call(app, "POST", "/contractors", { token: key, json: { name: "Grace" } })).status).toBe(403)
      expect((yield* call(app, "GET", "/batches", { token: key })).status).toBe(403)
      const listed = (yield* call(app, "GET", "/api-keys", { token: boss.token })).body.items as Array<{ id: string; lastUsedAt: string | null }>
      expect(listed.find((k) => k.id === id)?.lastUsedAt).not.toBeNull()
    }))

  it.effect("revoked and expired keys are 401 at once, on every instance", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const second = yield* app.startInstance
      const elsewhere = { ...app, url: second.url }
      const boss = yield* walletEmployer(app, "Revoking Co")
      const { id, key } = yield* createKey(app, boss.token, { scopes: ["directory:read"] })
      expect((yield* call(elsewhere, "GET", "/contractors", { token: key })).status).toBe(200)
      expect((yield* call(app, "DELETE", `/api-keys/${id}`, { token: boss.token })).status).toBe(204)
      expect((yield* call(elsewhere, "GET", "/contractors", { token: key })).status).toBe(401)
      expect((yield* call(app, "GET", "/contractors", { token: key })).status).toBe(401)

      const soon = new Date(Date.now() + 60_000).toISOString()
      const expiring = yield* createKey(app, boss.token, { scopes: ["directory:read"], expiresAt: soon })
      expect((yield* call(elsewhere, "GET", "/contractors", { token: expiring.key })).status).toBe(200)
      yield* query(app, "UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [expiring.id])
      const refused = yield* call(elsewhere, "GET", "/contractors", { token: expiring.key })
      expect(refused.status).toBe(401)
      expect(refused.body.error).toMatch(/expired/)
      expect((yield* call(app, "GET", "/contractors", { token: expiring.key })).status).toBe(401)
      expect((yield* call(app, "GET", "/contractors", { token: `cpk_${"A".repeat(43)}` })).status).toBe(401)
      yield* second.stop
    }))

  it.effect("POST /transfer with a wallet-created key lands a transfer; the envelope must be that wallet's", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* walletEmployer(app, "Transfer Co")
      const { key } = yield* createKey(app, boss.token, { scopes: ["transfers:submit"] })
      const sent = yield* call(app, "POST", "/transfer", { token: key, json: { signedXDR: innerTransfer(app, boss.wallet) } })
      expect(sent.status, JSON.stringify(sent.body)).toBe(200)
      expect(sent.body.status).toBe("SUCCESS")
      expect((yield* call(app, "GET", `/transfers/${sent.body.hash}`, { token: key })).status).toBe(200)

      const stranger = Keypair.random()
      app.rpc.setAccount({ id: stranger.publicKey() })
      const foreign = yield* call(app, "POST", "/transfer", { token: key, json: { signedXDR: innerTransfer(app, stranger) } })
      expect(foreign.status).toBe(403)

      const reader = yield* createKey(app, boss.token, { scopes: ["directory:read"] })
      const unscoped = yield* call(app, "POST", "/transfer", { token: reader.key, json: { signedXDR: innerTransfer(app, boss.wallet) } })
      expect(unscoped.status).toBe(403)
    }))

  it.effect("a key created by an email session gets 501 on POST /transfer, as the session would", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const signedIn = yield* call(app, "POST", "/auth/privy", { json: { token: yield* privyToken({ sub: "did:privy:keys-email" }) } })
      expect(signedIn.status).toBe(200)
      const token = signedIn.body.token as string
      expect((yield* call(app, "POST", "/orgs", { token, json: { name: "Email Co" } })).status).toBe(200)
      const { key } = yield* createKey(app, token, { scopes: ["transfers:submit"] })
      const wallet = Keypair.random()
      app.rpc.setAccount({ id: wallet.publicKey() })
      const reply = yield* call(app, "POST", "/transfer", { token: key, json: { signedXDR: innerTransfer(app, wallet) } })
      expect(reply.status).toBe(501)
    }))

  it.effect("a key never appears in the captured logs", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const boss = yield* walletEmployer(app, "Logged Co")
      const { key } = yield* createKey(app, boss.token, { scopes: ["directory:read"] })
      yield* call(app, "GET", "/contractors", { token: key })
      yield* call(app, "GET", "/batches", { token: key })
      yield* call(app, "GET", "/contractors", { token: `${key}x` })
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
      expect(lines.some((line) => line.includes("\"route\""))).toBe(true)
      for (const line of lines) expect(line).not.toContain(key.slice(4))
    }))
})

