import { expect, layer } from "@effect/vitest"
import { Keypair, Networks, StellarToml, Transaction } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { TESTNET_USDC_ISSUER } from "../src/Config.ts"
import { call, signChallenge, signIn } from "./support/Client.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

const challengeFor = (account: string) =>
  Effect.flatMap(TestApp, (app) => call(app, "GET", `/auth/sep10/challenge?account=${account}`))

const verify = (transaction: string) => Effect.flatMap(TestApp, (app) => call(app, "POST", "/auth/sep10/verify", { json: { transaction } }))

layer(TestAppLive())("SEP-10 sign-in", (it) => {
  it.effect("a wallet signs the challenge with the SDK and gets a session", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      expect(challenge.status).toBe(200)
      expect(challenge.body.network_passphrase).toBe(Networks.TESTNET)
      const tx = new Transaction(challenge.body.transaction, Networks.TESTNET)
      expect(tx.sequence).toBe("0")
      expect(tx.operations.map((op) => op.type)).toEqual(["manageData", "manageData"])
      expect(tx.operations[0]?.source).toBe(wallet.publicKey())
      expect(tx.operations[1]).toMatchObject({ name: "web_auth_domain", source: app.sep10Key.publicKey() })
      const value = tx.operations[0]?.type === "manageData" ? tx.operations[0].value : undefined
      expect(Buffer.from(Buffer.from(value ?? []).toString(), "base64")).toHaveLength(48)
      expect(Number(tx.timeBounds?.maxTime) - Number(tx.timeBounds?.minTime)).toBe(300)

      const res = yield* verify(signChallenge(challenge.body.transaction, Networks.TESTNET, wallet))
      expect(res.status).toBe(200)
      const me = yield* call(app, "GET", "/me", { token: res.body.token })
      expect(me.body).toMatchObject({ sub: wallet.publicKey(), method: "sep10", roles: [], needsOnboarding: true })
    }))

  it.effect("a replayed challenge is 400", () =>
    Effect.gen(function*() {
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      const signed = signChallenge(challenge.body.transaction, Networks.TESTNET, wallet)
      expect((yield* verify(signed)).status).toBe(200)
      const replay = yield* verify(signed)
      expect(replay.status).toBe(400)
      expect(replay.body.error).toContain("already used")
    }))

  it.effect("concurrent verifications of one challenge: exactly one wins", () =>
    Effect.gen(function*() {
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      const signed = signChallenge(challenge.body.transaction, Networks.TESTNET, wallet)
      const results = yield* Effect.all(Array.from({ length: 8 }, () => verify(signed)), { concurrency: "unbounded" })
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400])
    }))

  it.effect("an expired challenge is 400", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      const signed = signChallenge(challenge.body.transaction, Networks.TESTNET, wallet)
      app.clock.offsetMs = 6 * 60 * 1000
      const res = yield* verify(signed).pipe(Effect.ensuring(Effect.sync(() => (app.clock.offsetMs = 0))))
      expect(res.status).toBe(400)
      expect(res.body.error).toBe("challenge expired")
    }))

  it.effect("an unsigned challenge, or one signed by a stranger or with an extra signature, is 400", () =>
    Effect.gen(function*() {
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      const res = yield* verify(signChallenge(challenge.body.transaction, Networks.TESTNET, Keypair.random()))
      expect(res.status).toBe(400)
      expect(res.body.error).toMatch(/signatures rejected/)
      const unsigned = yield* verify(challenge.body.transaction)
      expect(unsigned.status).toBe(400)
      const extra = yield* verify(signChallenge(challenge.body.transaction, Networks.TESTNET, wallet, Keypair.random()))
      expect(extra.status).toBe(400)
      expect(extra.body.error).toMatch(/unrecognized signatures/)
      expect((yield* verify(signChallenge(challenge.body.transaction, Networks.TESTNET, wallet))).status).toBe(200)
    }))

  it.effect("a challenge not signed by the SIGNING_KEY is 400", () =>
    Effect.gen(function*() {
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      const tx = new Transaction(challenge.body.transaction, Networks.TESTNET)
      tx.signatures.splice(0)
      tx.sign(Keypair.random(), wallet)
      const res = yield* verify(tx.toXDR())
      expect(res.status).toBe(400)
      expect(res.body.error).toMatch(/invalid challenge/)
    }))

  it.effect("a multisig account must reach its medium threshold", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const account = Keypair.random()
      const cosigner = Keypair.random()
      app.rpc.setAccount({
        id: account.publicKey(),
        thresholds: { master: 1, low: 1, medium: 2, high: 2 },
        signers: [{ key: cosigner.publicKey(), weight: 1 }]
      })
      const first = yield* challengeFor(account.publicKey())
      const short = yield* verify(signChallenge(first.body.transaction, Networks.TESTNET, account))
      expect(short.status).toBe(400)
      expect(short.body.error).toMatch(/threshold/)
      const second = yield* challengeFor(account.publicKey())
      const enough = yield* verify(signChallenge(second.body.transaction, Networks.TESTNET, account, cosigner))
      expect(enough.status).toBe(200)
    }))

  for (const medium of [1, 0]) {
    it.effect(`a master key of weight 0 never signs in (medium threshold ${medium}); the other signers do`, () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const account = Keypair.random()
        const signer = Keypair.random()
        app.rpc.setAccount({
          id: account.publicKey(),
          thresholds: { master: 0, low: medium, medium, high: medium },
          signers: [{ key: signer.publicKey(), weight: 1 }]
        })
        const withMaster = yield* challengeFor(account.publicKey())
        const refused = yield* verify(signChallenge(withMaster.body.transaction, Networks.TESTNET, account))
        expect(refused.status).toBe(400)
        expect(refused.body.error).toMatch(/signatures rejected/)
        const withSigner = yield* challengeFor(account.publicKey())
        const res = yield* verify(signChallenge(withSigner.body.transaction, Networks.TESTNET, signer))
        expect(res.status).toBe(200)
        const me = yield* call(app, "GET", "/me", { token: res.body.token })
        expect(me.body.sub).toBe(account.publicKey())
      }))
  }

  it.effect("an account with no signer of weight above 0 cannot sign in at all", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const account = Keypair.random()
      const signer = Keypair.random()
      app.rpc.setAccount({
        id: account.publicKey(),
        thresholds: { master: 0, low: 0, medium: 0, high: 0 },
        signers: [{ key: signer.publicKey(), weight: 0 }]
      })
      for (const keys of [[account], [signer], [account, signer]]) {
        const challenge = yield* challengeFor(account.publicKey())
        const res = yield* verify(signChallenge(challenge.body.transaction, Networks.TESTNET, ...keys))
        expect(res.status).toBe(400)
        expect(res.body.error).toBe("challenge signatures rejected: the account has no signer of weight above 0")
      }
    }))

  it.effect("an RPC failure while reading the account is 502, and the challenge stays usable", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const challenge = yield* challengeFor(wallet.publicKey())
      const signed = signChallenge(challenge.body.transaction, Networks.TESTNET, wallet)
      // Only the account read, until cleared: the archive's ingester calls the RPC too.
      app.rpc.setFault({ kind: "http500" }, { methods: ["getLedgerEntries"] })
      const failed = yield* verify(signed).pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null))))
      expect(failed.status).toBe(502)
      expect((yield* verify(signed)).status).toBe(200)
    }))

  it.effect("the standard /auth endpoint serves stock wallets, with a form body", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const challenge = yield* call(app, "GET", `/auth?account=${wallet.publicKey()}&home_domain=payroll.test`)
      expect(challenge.status).toBe(200)
      const transaction = signChallenge(challenge.body.transaction, Networks.TESTNET, wallet)
      const res = yield* call(app, "POST", "/auth", {
        body: new URLSearchParams({ transaction }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expect(res.status).toBe(200)
      expect(typeof res.body.token).toBe("string")
    }))

  it.effect("bad accounts and foreign home domains are 400", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const bad = yield* call(app, "GET", "/auth/sep10/challenge?account=GABC")
      expect(bad.status).toBe(400)
      expect(bad.body.error).toContain("G...")
      const foreign = yield* call(app, "GET", `/auth/sep10/challenge?account=${Keypair.random().publicKey()}&home_domain=evil.test`)
      expect(foreign.status).toBe(400)
      expect(foreign.body.error).toBe("home_domain must be payroll.test")
      const missing = yield* call(app, "GET", "/auth/sep10/challenge")
      expect(missing.status).toBe(400)
    }))

  it.effect("stellar.toml parses with the SDK's resolver and carries the defaults", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const res = yield* call(app, "GET", "/.well-known/stellar.toml")
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/)
      expect(res.headers.get("access-control-allow-origin")).toBe("*")
      const toml = yield* Effect.promise(() => StellarToml.Resolver.resolve(new URL(app.url).host, { allowHttp: true }))
      expect(toml).toMatchObject({
        VERSION: "2.7.0",
        NETWORK_PASSPHRASE: Networks.TESTNET,
        SIGNING_KEY: app.sep10Key.publicKey(),
        WEB_AUTH_ENDPOINT: "http://payroll.test/auth",
        ACCOUNTS: [app.sponsorKey.publicKey(), app.faucetKey.publicKey()],
        DOCUMENTATION: { ORG_NAME: "Confidential Contractor Payroll", ORG_URL: "http://payroll.test" },
        CURRENCIES: [{
          code: "USDC",
          issuer: TESTNET_USDC_ISSUER,
          status: "test",
          display_decimals: 7,
          is_asset_anchored: true,
          anchor_asset_type: "fiat",
          anchor_asset: "USD",
          is_unlimited: true
        }]
      })
      expect(Object.keys(toml.DOCUMENTATION ?? {}).sort()).toEqual(["ORG_NAME", "ORG_URL"])
      expect(toml.CURRENCIES?.[0]).not.toHaveProperty("contract")
    }))

  it.effect("the helper used by other suites signs in", () =>
    Effect.gen(function*() {
      const token = yield* signIn(yield* TestApp)
      expect(token.split(".")).toHaveLength(3)
    }))
})

layer(TestAppLive({ AUTH_RATE_LIMIT: "3", AUTH_RATE_WINDOW: "1 minute" }))("sign-in rate limit", (it) => {
  it.effect("the fourth token request in a window from one address is 429; challenges do not count", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const signedChallenge = Effect.map(challengeFor(wallet.publicKey()), (challenge) => {
        expect(challenge.status).toBe(200)
        return signChallenge(challenge.body.transaction, Networks.TESTNET, wallet)
      })
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((yield* verify(yield* signedChallenge)).status)
      expect(statuses).toEqual([200, 200, 200, 429])
      const limited = yield* call(app, "POST", "/auth/privy", { json: { token: "x" } })
      expect(limited.status).toBe(429)
      expect(limited.body.error).toMatch(/too many/)
      expect((yield* call(app, "GET", "/health")).status).toBe(200)
      const signed = yield* signedChallenge
      app.clock.offsetMs = 61_000
      const later = yield* verify(signed).pipe(Effect.ensuring(Effect.sync(() => (app.clock.offsetMs = 0))))
      expect(later.status).toBe(200)
    }))
})
