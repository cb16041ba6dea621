import { expect, layer } from "@effect/vitest"
import { Keypair, Networks, StellarToml } from "@stellar/stellar-sdk"
import { SigningKeypair, Wallet } from "@stellar/typescript-wallet-sdk"
import { Effect } from "effect"
import { TESTNET_USDC_ISSUER } from "../src/Config.ts"
import { call } from "./support/Client.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"

const ORG_NAME = "Acme \"Payroll\" \\ Co\tLtd"
const ORG_DESCRIPTION = "Pays contractors\nconfidentially"
/** The Stellar Asset Contract of testnet USDC. */
const USDC_CONTRACT = "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA"
const channels = [Keypair.random(), Keypair.random()]

const config = {
  ORG_NAME,
  ORG_DESCRIPTION,
  ORG_OFFICIAL_EMAIL: "ops@payroll.example",
  ORG_SUPPORT_EMAIL: "help@payroll.example",
  USDC_CONTRACT,
  CHANNEL_SECRETS: channels.map((k) => k.secret()).join(",")
}

/** The service as SDF's wallet SDK finds it: its stellar.toml at its own host, over http (allowed on testnet only). */
const anchorAt = (url: string) => Wallet.TestNet().anchor({ homeDomain: new URL(url).host, allowHttp: true })

layer(TestAppLive(config, { selfUrl: true }))("SDF's wallet SDK", (it) => {
  it.effect("signs in through stellar.toml, and the JWT opens /me", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const wallet = Keypair.random()
      const sep10 = yield* Effect.promise(() => anchorAt(app.url).sep10())
      const auth = yield* Effect.promise(() => sep10.authenticate({ accountKp: SigningKeypair.fromSecret(wallet.secret()) }))
      expect(auth.account).toBe(wallet.publicKey())
      expect(auth.issuer).toBe(app.url)
      const me = yield* call(app, "GET", "/me", { token: auth.token })
      expect(me.status).toBe(200)
      expect(me.body).toMatchObject({ sub: wallet.publicKey(), method: "sep10" })
    }))

  it.effect("reads the organization, the accounts and USDC from stellar.toml", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const info = yield* Effect.promise(() => anchorAt(app.url).sep1())
      expect(info).toMatchObject({
        version: "2.7.0",
        networkPassphrase: Networks.TESTNET,
        signingKey: app.sep10Key.publicKey(),
        webAuthEndpoint: `${app.url}/auth`,
        accounts: [app.sponsorKey.publicKey(), app.faucetKey.publicKey(), ...channels.map((k) => k.publicKey())],
        documentation: {
          orgName: ORG_NAME,
          orgUrl: app.url,
          orgDescription: ORG_DESCRIPTION,
          orgOfficialEmail: "ops@payroll.example",
          orgSupportEmail: "help@payroll.example"
        }
      })
      expect(info.currencies).toHaveLength(1)
      expect(info.currencies[0]).toMatchObject({
        code: "USDC",
        issuer: TESTNET_USDC_ISSUER,
        status: "test",
        displayDecimals: 7,
        isAssetAnchored: true,
        anchorAssetType: "fiat",
        anchorAsset: "USD",
        isUnlimited: true
      })
    }))

  it.effect("configured text with quotes, backslashes and control characters stays valid TOML for the stellar-sdk resolver too", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const toml = yield* Effect.promise(() => StellarToml.Resolver.resolve(new URL(app.url).host, { allowHttp: true }))
      expect(toml.DOCUMENTATION).toMatchObject({ ORG_NAME, ORG_DESCRIPTION })
      expect(toml.CURRENCIES?.[0]).toMatchObject({ code: "USDC", issuer: TESTNET_USDC_ISSUER })
      expect(toml.CURRENCIES?.[0]).not.toHaveProperty("contract") // USDC is a Stellar Asset: SEP-1 omits `contract`
    }))
})
