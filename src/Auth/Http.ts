import { HttpApiBuilder } from "@effect/platform"
import { Networks } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import { Api } from "../Api.ts"
import { ServerConfig, StellarConfig, StellarTomlConfig } from "../Config.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { ApiKeys } from "./ApiKeys.ts"
import { Privy } from "./Privy.ts"
import { Sep10 } from "./Sep10.ts"

/** The SEP-1 version the published stellar.toml follows. */
const SEP1_VERSION = "2.7.0"

type TomlValue = string | number | boolean | ReadonlyArray<string>

/** A TOML basic string: configured text with quotes, backslashes or control characters still parses. */
const tomlString = (value: string) =>
  `"${
    value.replace(/[\\"\u0000-\u001f\u007f]/g, (c) =>
      c === "\\" || c === "\"" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  }"`

const tomlValue = (value: TomlValue): string =>
  typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : typeof value === "string"
    ? tomlString(value)
    : `[${value.map(tomlString).join(", ")}]`

/** `key = value` lines in the given order; an unset optional value leaves its key out. */
const tomlLines = (fields: Record<string, TomlValue | Option.Option<string>>) =>
  Object.entries(fields).flatMap(([key, field]) => {
    const value = Option.isOption(field) ? Option.getOrUndefined(field) : field
    return value === undefined ? [] : [`${key} = ${tomlValue(value)}`]
  })

/**
 * SEP-1 stellar.toml: what stock wallets read to find the web auth endpoint, its signing key and the currency. USDC
 * is a Stellar Asset, so its entry names the issuer and no `contract` (SEP-1 2.7.0 omits it for Stellar Assets). It
 * is Circle's token, redeemable for US dollars (anchored, fiat, USD), minted at Circle's discretion: of the three
 * mutually exclusive issuance fields SEP-1 wants exactly one, and that is `is_unlimited`.
 */
const stellarToml = Effect.gen(function*() {
  const sep10 = yield* Sep10
  const { publicUrl } = yield* ServerConfig
  const { networkPassphrase } = yield* StellarConfig
  const org = yield* StellarTomlConfig
  return [
    ...tomlLines({
      VERSION: SEP1_VERSION,
      NETWORK_PASSPHRASE: networkPassphrase,
      SIGNING_KEY: sep10.signingKey,
      WEB_AUTH_ENDPOINT: `${publicUrl}/auth`,
      ACCOUNTS: sep10.accounts
    }),
    "",
    "[DOCUMENTATION]",
    ...tomlLines({
      ORG_NAME: org.orgName,
      ORG_URL: Option.getOrElse(org.orgUrl, () => publicUrl),
      ORG_DESCRIPTION: org.orgDescription,
      ORG_OFFICIAL_EMAIL: org.orgOfficialEmail,
      ORG_SUPPORT_EMAIL: org.orgSupportEmail
    }),
    "",
    "[[CURRENCIES]]",
    ...tomlLines({
      code: "USDC",
      issuer: org.usdcIssuer,
      status: networkPassphrase === Networks.PUBLIC ? "live" : "test",
      display_decimals: 7,
      name: "USD Coin",
      desc: "Circle's dollar stablecoin, the currency contractor payouts are made in",
      is_asset_anchored: true,
      anchor_asset_type: "fiat",
      anchor_asset: "USD",
      is_unlimited: true
    }),
    ""
  ].join("\n")
})

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const sep10 = yield* Sep10
    const privy = yield* Privy
    const toml = yield* stellarToml
    return handlers
      .handle("sep10Challenge", ({ urlParams }) => sep10.challenge(urlParams))
      .handle("sep10Verify", ({ payload }) => sep10.verify(payload.transaction))
      .handle("webAuthChallenge", ({ urlParams }) => sep10.challenge(urlParams))
      .handle("webAuthToken", ({ payload }) => sep10.verify(payload.transaction))
      .handle("privy", ({ payload }) => privy.signIn(payload.token, payload.identityToken))
      .handle("stellarToml", () => Effect.succeed(toml))
  }))

export const ApiKeysHttpLive = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentSession, (s) => keys.create(s, payload)))
      .handle("list", () => Effect.flatMap(CurrentSession, keys.list))
      .handle("revoke", ({ path }) => Effect.flatMap(CurrentSession, (s) => keys.revoke(s, path.id)))
  }))
