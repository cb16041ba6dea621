import { expect, layer } from "@effect/vitest"
import { Networks, StrKey } from "@stellar/stellar-sdk"
import { Ajv } from "ajv"
import { Effect } from "effect"
import { call, type Reply } from "./support/Client.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { parseToml } from "./support/Toml.ts"

/**
 * What SDF's validator requires of each `[[CURRENCIES]]` entry (stellar/stellar-anchor-tests,
 * `@stellar/anchor-tests/src/schemas/sep1.ts` at 48bdb9f): `code`, `desc`, `status`, `is_asset_anchored` and
 * `anchor_asset_type` present, with these types. Its `display_decimals` type is `"range"`, which no JSON Schema
 * knows and its validator lets through; the 0 to 7 of SEP-1 is checked here instead.
 */
const currencySchema = {
  type: "object",
  required: ["is_asset_anchored", "anchor_asset_type", "code", "desc", "status"],
  properties: {
    code: { type: "string", maxLength: 12 },
    issuer: { type: "string" },
    display_decimals: { type: "integer", minimum: 0, maximum: 7 },
    name: { type: "string", maxLength: 20 },
    desc: { type: "string" },
    fixed_number: { type: "integer" },
    max_number: { type: "integer" },
    is_unlimited: { type: "boolean" },
    is_asset_anchored: { type: "boolean" },
    anchor_asset_type: { enum: ["fiat", "crypto", "stock", "bond", "commodity", "realestate", "other"] },
    anchor_asset: { type: "string" },
    status: { type: "string" },
    regulated: { type: "boolean" }
  }
}
const validCurrency = new Ajv({ allErrors: true }).compile(currencySchema)

/** The URL fields the validator checks ("all URLs are HTTPS and end without slashes"). */
const URL_FIELDS = ["FEDERATION_SERVER", "AUTH_SERVER", "TRANSFER_SERVER", "TRANSFER_SERVER_SEP0024", "KYC_SERVER",
  "WEB_AUTH_ENDPOINT", "HORIZON_URL", "DIRECT_PAYMENT_SERVER", "ANCHOR_QUOTE_SERVER"]
const ORG_URL_FIELDS = ["ORG_URL", "ORG_LOGO", "ORG_PHYSICAL_ADDRESS_ATTESTATION", "ORG_PHONE_NUMBER_ATTESTATION"]
const CURRENCY_URL_FIELDS = ["image", "attestation_of_reserve", "approval_server"]

type Check = readonly [assertion: string, failure: (reply: Reply, toml: any) => string | undefined]

/** The SEP-1 group of `@stellar/anchor-tests` (`src/tests/sep1/tests.ts` at 48bdb9f), one check per test of it. */
const anchorTestsSep1: ReadonlyArray<Check> = [
  ["the TOML file exists at ./well-known/stellar.toml", (reply, toml) =>
    reply.status !== 200
      ? `status ${reply.status}`
      : !/application\/toml|text\/plain/.test(reply.headers.get("content-type") ?? "")
      ? `content type ${reply.headers.get("content-type")}`
      : toml === undefined
      ? "does not parse"
      : undefined],
  ["the file has a size less than 100KB", (reply) =>
    Buffer.byteLength(String(reply.body)) > 100_000 ? `${Buffer.byteLength(String(reply.body))} bytes` : undefined],
  ["has a valid network passphrase", (_reply, toml) =>
    [Networks.TESTNET, Networks.PUBLIC].includes(toml.NETWORK_PASSPHRASE) ? undefined : `${toml.NETWORK_PASSPHRASE}`],
  ["has a valid CURRENCIES section", (_reply, toml) =>
    !Array.isArray(toml.CURRENCIES)
      ? "no CURRENCIES"
      : (toml.CURRENCIES as Array<unknown>).map((currency) =>
        validCurrency(currency) ? undefined : JSON.stringify(validCurrency.errors)
      ).find((failure) => failure !== undefined)],
  ["all URLs are HTTPS and end without slashes", (_reply, toml) =>
    [
      ...URL_FIELDS.map((field) => toml[field]),
      ...ORG_URL_FIELDS.map((field) => toml.DOCUMENTATION?.[field]),
      ...(toml.CURRENCIES ?? []).flatMap((currency: any) => CURRENCY_URL_FIELDS.map((field) => currency[field]))
    ].filter((url): url is string => typeof url === "string")
      .map((url) => !url.startsWith("https://") ? `${url} is not https` : url.endsWith("/") ? `${url} ends with /` : undefined)
      .find((failure) => failure !== undefined)]
]

const ANCHOR_ASSET_TYPES = ["fiat", "crypto", "nft", "stock", "bond", "commodity", "realestate", "other"]

/** What SEP-1 2.7.0's text asks of the file and of its currency, beyond the validator. */
const sep1Text: ReadonlyArray<Check> = [
  ["served with Access-Control-Allow-Origin: *", (reply) =>
    reply.headers.get("access-control-allow-origin") === "*" ? undefined : "no `*`"],
  ["served as text/plain", (reply) => reply.headers.get("content-type")?.startsWith("text/plain") ? undefined : "not text/plain"],
  ["VERSION 2.7.0, SIGNING_KEY a G... key, WEB_AUTH_ENDPOINT set", (_reply, toml) =>
    toml.VERSION === "2.7.0" && StrKey.isValidEd25519PublicKey(toml.SIGNING_KEY) && typeof toml.WEB_AUTH_ENDPOINT === "string"
      ? undefined
      : "missing or invalid"],
  ["a Stellar Asset: `issuer` G..., no `contract`", (_reply, toml) =>
    toml.CURRENCIES.every((c: any) => StrKey.isValidEd25519PublicKey(c.issuer) && c.contract === undefined)
      ? undefined
      : "issuer or contract"],
  ["`status` is live, dead, test or private", (_reply, toml) =>
    toml.CURRENCIES.every((c: any) => ["live", "dead", "test", "private"].includes(c.status)) ? undefined : "status"],
  ["exactly one of fixed_number, max_number, is_unlimited", (_reply, toml) =>
    toml.CURRENCIES.every((c: any) => ["fixed_number", "max_number", "is_unlimited"].filter((f) => f in c).length === 1)
      ? undefined
      : "issuance policy"],
  ["an anchored token names its anchor_asset_type (SEP-1's list) and anchor_asset", (_reply, toml) =>
    toml.CURRENCIES.every((c: any) =>
      c.is_asset_anchored !== true || (ANCHOR_ASSET_TYPES.includes(c.anchor_asset_type) && typeof c.anchor_asset === "string")
    )
      ? undefined
      : "anchor fields"]
]

const run = (checks: ReadonlyArray<Check>, reply: Reply, toml: any) =>
  checks.map(([assertion, failure]) => {
    try {
      const why = failure(reply, toml)
      return why === undefined ? undefined : `${assertion}: ${why}`
    } catch (e) {
      return `${assertion}: ${e instanceof Error ? e.message : String(e)}`
    }
  }).filter((failure) => failure !== undefined)

layer(TestAppLive({ PUBLIC_URL: "https://payroll.example.com" }))("stellar.toml against SEP-1 and SDF's validator", (it) => {
  it.effect("passes every SEP-1 check of @stellar/anchor-tests and SEP-1's own rules", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const reply = yield* call(app, "GET", "/.well-known/stellar.toml", { headers: { origin: "https://wallet.example.net" } })
      let toml: any
      try {
        toml = parseToml(String(reply.body))
      } catch {
        toml = undefined
      }
      const validator = run(anchorTestsSep1, reply, toml)
      const text = run(sep1Text, reply, toml)
      console.log(
        `[stellar toml] @stellar/anchor-tests' SEP-1 checks, ported (the package is not on the npm registry): ` +
          `${anchorTestsSep1.length - validator.length}/${anchorTestsSep1.length}; SEP-1 2.7.0's text: ` +
          `${sep1Text.length - text.length}/${sep1Text.length}`
      )
      expect([...validator, ...text]).toEqual([])
      expect(toml.CURRENCIES).toEqual([{
        code: "USDC",
        issuer: "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5",
        status: "test",
        display_decimals: 7,
        name: "USD Coin",
        desc: "Circle's dollar stablecoin, the currency contractor payouts are made in",
        is_asset_anchored: true,
        anchor_asset_type: "fiat",
        anchor_asset: "USD",
        is_unlimited: true
      }])
    }))

  it.effect("the validator's checks catch what they should", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const reply = yield* call(app, "GET", "/.well-known/stellar.toml")
      const toml = parseToml<{ readonly CURRENCIES: ReadonlyArray<Record<string, unknown>> }>(String(reply.body))
      const broken = {
        ...toml,
        WEB_AUTH_ENDPOINT: "http://payroll.example.com/auth",
        CURRENCIES: [{ ...toml.CURRENCIES[0], anchor_asset_type: "nft", max_number: 1 }]
      }
      expect(run([...anchorTestsSep1, ...sep1Text], reply, broken)).toEqual([
        expect.stringMatching(/^has a valid CURRENCIES section: .*anchor_asset_type/),
        expect.stringMatching(/^all URLs are HTTPS.*is not https/),
        expect.stringMatching(/^exactly one of fixed_number/)
      ])
    }))
})
