import { expect, layer } from "@effect/vitest"
import { Address, Keypair, nativeToScVal, Networks, scValToNative, StrKey, xdr } from "@stellar/stellar-sdk"
import { Context, Effect, Fiber, Layer } from "effect"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { api } from "./support/Api.ts"
import { call, signIn } from "./support/Client.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"

const USDC = StrKey.encodeContract(randomBytes(32))
const VAULT = StrKey.encodeContract(randomBytes(32))

/** The error a request failed with, as its tag and fields. */
const failure = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flip(effect).pipe(Effect.map((e) => ({ ...e }) as { readonly _tag: E["_tag"]; readonly error?: string }))

layer(TestAppLive({ USDC_CONTRACT: USDC, VAULT_CONTRACT: VAULT, FAUCET_AMOUNT: "100", ...privyConfig }, { ledgerIntervalMs: 20 }))(
  "funding",
  (it) => {
    it.effect("the vault's USDC balance is read through RPC and shown with 7 decimal places", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const client = yield* api(app, yield* signIn(app))
        let balance = 0n
        let asked: string | undefined
        app.rpc.setContractFunction(USDC, "balance", (args) => {
          asked = Address.fromScVal(args[0]!).toString()
          return nativeToScVal(balance, { type: "i128" })
        })
        const held = (stroops: bigint) =>
          Effect.gen(function*() {
            balance = stroops
            const res = yield* client.funding.vault()
            expect(res.vault).toBe(VAULT)
            return res.held
          })
        expect(yield* held(0n)).toBe("0.0000000")
        expect(yield* held(1n)).toBe("0.0000001")
        expect(yield* held(12_345_678_900_000_000n)).toBe("1234567890.0000000")
        expect(yield* held(170141183460469231731687303715884105727n)).toBe("17014118346046923173168730371588.4105727")
        expect(asked).toBe(VAULT)
        app.rpc.setFault({ kind: "http500" }, { methods: ["simulateTransaction"] })
        const down = yield* failure(client.funding.vault()).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
        expect(down._tag).toBe("UpstreamUnavailable")
        expect((yield* failure((yield* api(app)).funding.vault()))._tag).toBe("Unauthorized")
      }))

    it.effect("the faucet sends FAUCET_AMOUNT of USDC, fee-bumped by the sponsor, once per address per 24 hours", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const wallet = Keypair.random()
        const token = yield* signIn(app, wallet)
        const client = yield* api(app, token)
        const transfers: Array<{ from: string; to: string; amount: bigint }> = []
        app.rpc.setContractFunction(USDC, "transfer", (args, ctx) => {
          if (ctx.phase === "apply") {
            transfers.push({
              from: Address.fromScVal(args[0]!).toString(),
              to: Address.fromScVal(args[1]!).toString(),
              amount: BigInt(scValToNative(args[2]!))
            })
          }
          return xdr.ScVal.scvVoid()
        })
        const granted = yield* client.funding.faucet({ payload: {} })
        expect(granted.status).toBe("SUCCESS")
        expect(transfers).toEqual([{ from: app.faucetKey.publicKey(), to: wallet.publicKey(), amount: 1_000_000_000n }])
        const sent = app.rpc.transaction(granted.hash)!
        expect(sent.feeSource).toBe(app.sponsorKey.publicKey())
        expect(sent.source).toBe(app.faucetKey.publicKey())

        const followed = yield* client.transfers.status({ path: { hash: granted.hash } })
        expect(followed).toMatchObject({ hash: granted.hash, status: "SUCCESS", source: app.faucetKey.publicKey() })
        const stranger = yield* api(app, yield* signIn(app))
        expect((yield* failure(stranger.transfers.status({ path: { hash: granted.hash } })))._tag).toBe("NotFound")

        const again = yield* failure(client.funding.faucet({ payload: {} }))
        expect(again._tag).toBe("RateLimited")
        expect(again.error).toContain("24 hours")
        const other = StellarAddress.make(Keypair.random().publicKey())
        expect((yield* client.funding.faucet({ payload: { address: other } })).status).toBe("SUCCESS")
        expect((yield* failure(client.funding.faucet({ payload: { address: other } })))._tag).toBe("RateLimited")
        // Not a Stellar address: the typed client would refuse to encode it, so it goes raw.
        expect((yield* call(app, "POST", "/funding/faucet", { token, json: { address: "GNOPE" } })).status).toBe(400)
      }))

    it.effect("with no channel accounts, concurrent grants take turns with the faucet account as their source", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        app.rpc.setContractFunction(USDC, "transfer", () => xdr.ScVal.scvVoid())
        const wallets = Array.from({ length: 3 }, () => Keypair.random())
        const clients = yield* Effect.forEach(wallets, (w) => Effect.flatMap(signIn(app, w), (token) => api(app, token)))
        const granted = yield* Effect.forEach(clients, (c) => c.funding.faucet({ payload: {} }), { concurrency: "unbounded" })
        const sent = granted.map((g) => app.rpc.transaction(g.hash)!)
        expect(sent.map((t) => [t.status, t.source, t.feeSource])).toEqual(
          sent.map(() => ["SUCCESS", app.faucetKey.publicKey(), app.sponsorKey.publicKey()])
        )
        // One transaction per source account at a time: each is sent after the previous one's ledger closed.
        const inOrder = [...sent].sort((a, b) => a.ledger! - b.ledger!)
        for (const [earlier, later] of inOrder.slice(0, -1).map((t, i) => [t, inOrder[i + 1]!] as const)) {
          expect(later.ledger).toBeGreaterThan(earlier.ledger!)
          expect(later.sends[0]!.at).toBeGreaterThanOrEqual(app.rpc.closeTimeOf(earlier.ledger!)!)
        }
      }))

    it.effect("an email session must name the address", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const email = yield* (yield* api(app)).auth.privy({ payload: { token: yield* privyToken() } })
        const res = yield* failure((yield* api(app, email.token)).funding.faucet({ payload: {} }))
        expect(res._tag).toBe("InvalidRequest")
        expect(res.error).toContain("address is required")
      }))
  }
)

layer(TestAppLive({}, { ledgerIntervalMs: 20 }))("funding unconfigured", (it) => {
  it.effect("vault and faucet answer 501", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const client = yield* api(app, yield* signIn(app))
      const vault = yield* failure(client.funding.vault())
      expect(vault._tag).toBe("NotImplemented")
      expect(vault.error).toContain("VAULT_CONTRACT")
      expect((yield* failure(client.funding.faucet({ payload: {} })))._tag).toBe("NotImplemented")
    }))
})

layer(TestAppLive({ USDC_CONTRACT: USDC, NETWORK_PASSPHRASE: Networks.FUTURENET }, { ledgerIntervalMs: 20 }))("faucet off testnet", (it) => {
  it.effect("the faucet answers 501 on any network but testnet", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const client = yield* api(app, yield* signIn(app))
      const res = yield* failure(client.funding.faucet({ payload: {} }))
      expect(res._tag).toBe("NotImplemented")
      expect(res.error).toContain("testnet only")
    }))

  it.effect("with no VAULT_CONTRACT the vault is the confidential token contract, which holds the pooled USDC", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const client = yield* api(app, yield* signIn(app))
      let asked: string | undefined
      app.rpc.setContractFunction(USDC, "balance", (args) => {
        asked = Address.fromScVal(args[0]!).toString()
        return nativeToScVal(25_000_000n, { type: "i128" })
      })
      const vault = yield* client.funding.vault()
      expect({ ...vault }).toEqual({ vault: CONFIDENTIAL_TOKEN, held: "2.5000000" })
      expect(asked).toBe(CONFIDENTIAL_TOKEN)
    }))
})

const CHANNELS = Array.from({ length: 4 }, () => Keypair.random())

/** The inner transaction's one operation, as the ledger received it. */
const invocation = (envelopeXdr: string) => {
  const envelope = xdr.TransactionEnvelope.fromXdr(envelopeXdr, "base64")
  if (envelope.type !== "envelopeTypeTxFeeBump") throw new Error("expected a fee-bump envelope")
  const op = envelope.feeBump.tx.innerTx.v1.tx.operations[0]!
  if (op.body.type !== "invokeHostFunction") throw new Error("expected invokeHostFunction")
  return op.body.invokeHostFunctionOp
}

/** Resolves once `count` transactions sent after the first `before` wait in the loopback's queue. */
const queued = (app: TestAppShape, before: number, count: number) =>
  Effect.promise(async () => {
    while (app.rpc.transactions.slice(before).filter((t) => t.status === "PENDING").length < count) {
      await new Promise((r) => setTimeout(r, 10))
    }
  })

/** Closes a ledger every `ms` until interrupted. */
const ledgerClock = (app: TestAppShape, ms: number) =>
  Effect.sleep(ms).pipe(Effect.zipRight(Effect.sync(() => app.rpc.advanceLedger())), Effect.forever)

// Ledgers close only when a test says so, so which ledger a transaction lands in is the test's decision.
layer(TestAppLive({ USDC_CONTRACT: USDC, FAUCET_AMOUNT: "5", CHANNEL_SECRETS: CHANNELS.map((k) => k.secret()).join(","), ...privyConfig }, {
  ledgerIntervalMs: 0
}), { excludeTestServices: true })("faucet channels", (it) => {
  /** USDC's transfer, which requires `from`'s authorization like the Stellar Asset Contract. */
  const usdcTransfer = (app: TestAppShape, paid: Array<string>) =>
    app.rpc.setContractFunction(USDC, "transfer", (args, ctx) => {
      ctx.requireAuth(Address.fromScVal(args[0]!).toString())
      if (ctx.phase === "apply") paid.push(Address.fromScVal(args[1]!).toString())
      return xdr.ScVal.scvVoid()
    })

  it.effect("N grants at once go out through N channels, the faucet authorizing each, and land in one ledger", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      for (const channel of CHANNELS) app.rpc.setAccount({ id: channel.publicKey() })
      const paid: Array<string> = []
      usdcTransfer(app, paid)
      const wallets = CHANNELS.map(() => Keypair.random())
      const clients = yield* Effect.forEach(wallets, (w) => Effect.flatMap(signIn(app, w), (token) => api(app, token)))
      const before = app.rpc.transactions.length
      const grants = yield* Effect.fork(Effect.forEach(clients, (c) => c.funding.faucet({ payload: {} }), { concurrency: "unbounded" }))
      yield* queued(app, before, CHANNELS.length)
      app.rpc.advanceLedger()
      const granted = yield* Fiber.join(grants)

      const sent = granted.map((g) => app.rpc.transaction(g.hash)!)
      expect(sent.every((t) => t.status === "SUCCESS" && t.feeSource === app.sponsorKey.publicKey())).toBe(true)
      expect(new Set(sent.map((t) => t.ledger)).size).toBe(1)
      expect(new Set(sent.map((t) => t.source))).toEqual(new Set(CHANNELS.map((k) => k.publicKey())))
      expect([...paid].sort()).toEqual(wallets.map((w) => w.publicKey()).sort())
      for (const t of sent) {
        const [entry, ...more] = invocation(t.envelopeXdr).auth
        expect(more).toEqual([])
        expect(entry!.credentials.type).toBe("sorobanCredentialsAddress")
        if (entry!.credentials.type !== "sorobanCredentialsAddress") continue
        const credentials = entry!.credentials.address
        expect(Address.fromScAddress(credentials.address).toString()).toBe(app.faucetKey.publicKey())
        expect(credentials.signature.type).toBe("scvVec")
        expect(credentials.signatureExpirationLedger).toBeGreaterThan(t.ledger!)
      }
    }))

  it.effect("more grants than channels, on two instances: a channel never carries two transactions at once", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      for (const channel of CHANNELS) app.rpc.setAccount({ id: channel.publicKey() })
      usdcTransfer(app, [])
      const second = yield* app.startInstance
      const wallets = Array.from({ length: CHANNELS.length * 2 }, () => Keypair.random())
      const clients = yield* Effect.forEach(wallets, (w, i) =>
        Effect.flatMap(signIn(app, w), (token) => api(i % 2 === 0 ? app : second, token)))
      const before = app.rpc.transactions.length
      const clock = yield* Effect.fork(ledgerClock(app, 300))
      const granted = yield* Effect.forEach(clients, (c) => c.funding.faucet({ payload: {} }), { concurrency: "unbounded" }).pipe(
        Effect.ensuring(Fiber.interrupt(clock))
      )
      expect(granted.every((g) => g.status === "SUCCESS")).toBe(true)

      const sent = app.rpc.transactions.slice(before)
      expect(sent).toHaveLength(wallets.length)
      expect(sent.flatMap((t) => t.sends.map((s) => s.status))).toEqual(sent.flatMap((t) => t.sends.map(() => "PENDING")))
      for (const channel of CHANNELS) {
        const carried = sent.filter((t) => t.source === channel.publicKey()).sort((a, b) => a.sends[0]!.at - b.sends[0]!.at)
        for (const [earlier, later] of carried.slice(0, -1).map((t, i) => [t, carried[i + 1]!] as const)) {
          expect(later.sends[0]!.at).toBeGreaterThanOrEqual(app.rpc.closeTimeOf(earlier.ledger!)!)
        }
      }
    }))
})

const LONE = Keypair.random()

layer(TestAppLive({ USDC_CONTRACT: USDC, CHANNEL_SECRETS: LONE.secret() }, { ledgerIntervalMs: 200 }), { excludeTestServices: true })(
  "faucet channel leases",
  (it) => {
    it.effect("a final grant frees its channel; one that may still land keeps it until after its maxTime", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        app.rpc.setAccount({ id: LONE.publicKey() })
        app.rpc.setContractFunction(USDC, "transfer", (args, ctx) => {
          ctx.requireAuth(Address.fromScVal(args[0]!).toString())
          return xdr.ScVal.scvVoid()
        })
        const client = yield* api(app, yield* signIn(app))
        const grant = () => client.funding.faucet({ payload: { address: StellarAddress.make(Keypair.random().publicKey()) } })
        expect((yield* grant()).status).toBe("SUCCESS")
        expect((yield* grant()).status).toBe("SUCCESS")

        app.rpc.scriptSend({ kind: "neverLands" })
        const before = app.rpc.transactions.length
        const stuck = yield* Effect.fork(failure(grant()))
        yield* Effect.promise(async () => {
          while (!app.rpc.transactions.slice(before).some((t) => t.status === "DROPPED")) await new Promise((r) => setTimeout(r, 20))
        })
        // Past the grant's maxTime (120 s) and poll margin, short of its lease (maxTime + 30 s): it answers 504, but
        // the channel stays taken, and with one channel the faucet is busy.
        app.clock.offsetMs += 135_000
        expect((yield* Fiber.join(stuck))._tag).toBe("TransferTimeout")
        const busy = yield* failure(grant())
        expect(busy._tag).toBe("RateLimited")
        expect(busy.error).toContain("every channel account is in use")

        app.clock.offsetMs += 20_000
        const after = yield* grant()
        expect(after.status).toBe("SUCCESS")
        expect(app.rpc.transaction(after.hash)?.source).toBe(LONE.publicKey())
      }))
  }
)

class Friendbot extends Context.Tag("test/Friendbot")<Friendbot, { readonly funded: ReadonlyArray<string> }>() {}

/** A stand-in friendbot on loopback that records which accounts it was asked to fund. */
const FriendbotLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const funded: Array<string> = []
    const server = createServer((req, res) => {
      funded.push(new URL(req.url ?? "/", "http://friendbot").searchParams.get("addr") ?? "")
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () => Effect.sync(() => server.close())
    )
    const { port } = server.address() as { port: number }
    return Layer.merge(
      Layer.succeed(Friendbot, { funded }),
      TestAppLive({ FRIENDBOT_URL: `http://127.0.0.1:${port}/` }, { generatedKeys: true })
    )
  })
)

layer(FriendbotLive, { excludeTestServices: true })("development bootstrap", (it) => {
  it.effect("generated operational keys on testnet are funded once through friendbot at start-up", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { funded } = yield* Friendbot
      const keys = JSON.parse(yield* Effect.promise(() => readFile(join(app.config.DATA_DIR!, "keys.json"), "utf8")))
      const expected = [Keypair.fromSecret(keys.sponsorSecret).publicKey(), Keypair.fromSecret(keys.faucetSecret).publicKey()]
      yield* Effect.promise(async () => {
        for (let i = 0; i < 100 && funded.length < 2; i++) await new Promise((r) => setTimeout(r, 20))
      })
      expect([...funded].sort()).toEqual(expected.sort())
    }))
})
