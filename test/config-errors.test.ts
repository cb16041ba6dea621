import { describe, expect, it } from "@effect/vitest"
import { type Config, ConfigProvider, Duration, Effect, Option, Redacted } from "effect"
import fc from "fast-check"
import { generateKeyPairSync, randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { AllConfig, AuthLimitsConfig, ChallengeLimitsConfig, DatabaseConfig, FundingConfig, PrivyConfig, ServerConfig } from "../src/Config.ts"
import { EverySetting } from "../src/Server/Settings.ts"

const under = (settings: Readonly<Record<string, string>>) => <A>(config: Config.Config<A>) =>
  Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(settings))))

const refusal = <A>(config: Config.Config<A>, settings: Readonly<Record<string, string>>) =>
  Effect.map(Effect.flip(under(settings)(config)), String)

describe("settings refused at start", () => {
  it.effect("each names its variable and why, all of them together", () =>
    Effect.gen(function*() {
      const said = yield* refusal(AllConfig, {
        DATABASE_URL: "not a url",
        STELLAR_RPC_URL: "soroban-testnet.stellar.org",
        FRIENDBOT_URL: "ftp://friendbot.example",
        HOST: "not a host!",
        NODE_ENV: "production",
        AUTH_RATE_IPV6_PREFIX: "129",
        CORS_ORIGINS: "null"
      })
      for (
        const why of [
          "DATABASE_URL is not a PostgreSQL URL",
          "STELLAR_RPC_URL is not an http(s) URL",
          "FRIENDBOT_URL is not an http(s) URL",
          "HOST is not an IP address or a host name",
          "PUBLIC_URL is required when NODE_ENV=production",
          "AUTH_RATE_IPV6_PREFIX must be a prefix length from 1 to 128",
          "CORS_ORIGINS must not list null"
        ]
      ) expect(said).toContain(why)
      expect(said).not.toContain("not a url")
    }))

  it.effect("the features' own settings are read with the rest: webhooks, the archive, the audit checkpoints", () =>
    Effect.gen(function*() {
      const said = yield* refusal(EverySetting, {
        HOST: "not a host!",
        WEBHOOK_MAX_ATTEMPTS: "0",
        ARCHIVE_POLL_INTERVAL: "5 seconds",
        ARCHIVE_LEASE: "1 second",
        AUDIT_CHECKPOINT_INTERVAL: "10 millis"
      })
      for (
        const why of [
          "HOST is not an IP address or a host name",
          "WEBHOOK_MAX_ATTEMPTS must be from 1 to 50",
          "ARCHIVE_LEASE must be longer than ARCHIVE_POLL_INTERVAL",
          "AUDIT_CHECKPOINT_INTERVAL must be at least 1 second"
        ]
      ) expect(said).toContain(why)
      const [, , audit] = yield* under({ DATA_DIR: Path.join(tmpdir(), `payroll-no-crs-${randomUUID()}`) })(EverySetting)
      expect(Duration.toHours(audit.checkpointInterval)).toBe(24)
    }))

  it.effect("DATABASE_URL: a postgres[ql] URL, a socket host included; empty is unset", () =>
    Effect.gen(function*() {
      for (const url of ["postgres://u:p@db.internal:5432/payroll", "postgresql://u@/payroll?host=/var/run/postgresql", "postgres:///payroll"]) {
        const { url: read } = yield* under({ DATABASE_URL: url })(DatabaseConfig)
        expect(Option.map(read, Redacted.value)).toEqual(Option.some(url))
      }
      expect((yield* under({ DATABASE_URL: "" })(DatabaseConfig)).url).toEqual(Option.none())
      for (const url of ["not a url", "mysql://u:p@h/d", "postgres://u:p@h:port/d", "db.internal:5432"]) {
        expect(yield* refusal(DatabaseConfig, { DATABASE_URL: url }), url).toContain("DATABASE_URL is not a PostgreSQL URL")
      }
    }))

  it.effect("HOST: an IP address or a host name; an IPv6 one is bracketed in the default PUBLIC_URL", () =>
    Effect.gen(function*() {
      for (const host of ["0.0.0.0", "::", "localhost", "payroll.internal", "app-1.example.com."]) {
        expect((yield* under({ HOST: host })(ServerConfig)).host).toBe(host)
      }
      expect((yield* under({ HOST: "::1", PORT: "8080" })(ServerConfig)).publicUrl).toBe("http://[::1]:8080")
      for (const host of ["", "not a host!", "http://localhost", "-bad.example"]) {
        expect(yield* refusal(ServerConfig, { HOST: host }), host).toContain("HOST is not an IP address or a host name")
      }
    }))

  it.effect("HOST=256.1.1.1 and other names ending in a number are refused as HOST, not as `Invalid URL`", () =>
    Effect.gen(function*() {
      for (const host of ["256.1.1.1", "1.2.3.4.5", "1.2.3", "999", "foo.123", "example.0x1", "09.1.1.1", "app.example.1."]) {
        const said = yield* refusal(AllConfig, { HOST: host })
        expect(said, host).toContain("HOST is not an IP address or a host name")
        expect(said, host).not.toMatch(/Invalid URL/)
      }
      for (const host of ["foo.1a", "a.b.c.d.e", "1host.example", "10.0.0.1", "::ffff:10.0.0.1"]) {
        expect((yield* under({ HOST: host })(ServerConfig)).host).toBe(host)
      }
      // An IPv6 address with a zone is an address, yet no URL can hold it: the default PUBLIC_URL names HOST.
      expect(yield* refusal(ServerConfig, { HOST: "fe80::1%eth0" })).toContain("HOST fe80::1%eth0 does not make a URL for the default PUBLIC_URL")
      expect((yield* under({ HOST: "fe80::1%eth0", PUBLIC_URL: "https://payroll.example.com" })(ServerConfig)).host).toBe("fe80::1%eth0")
    }))

  it.effect("any HOST either starts with a default PUBLIC_URL or is refused naming HOST", () =>
    Effect.gen(function*() {
      const hostile = fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.array(fc.oneof(fc.nat({ max: 999 }).map(String), fc.stringMatching(/^[a-z0-9-]{1,8}$/), fc.constant("0x1f")), { minLength: 1, maxLength: 6 })
          .map((labels) => labels.join(".")),
        fc.ipV4().map((ip) => ip.replace(/\d+$/, (n) => String(Number(n) + 256))),
        fc.ipV6()
      )
      for (const host of fc.sample(hostile, { numRuns: 300, seed: 23 })) {
        const read = yield* Effect.either(under({ HOST: host })(ServerConfig))
        if (read._tag === "Right") expect(new URL(read.right.publicUrl).port, host).toBe("3000")
        else expect(String(read.left), host).toMatch(/HOST/)
      }
    }))

  it.effect("HOME_DOMAIN and WEB_AUTH_DOMAIN fit SEP-10's manage_data entries, also as PUBLIC_URL's host", () =>
    Effect.gen(function*() {
      const long = `${"a".repeat(56)}.example` // 64 bytes: a web_auth_domain, not a home domain
      expect(yield* refusal(ServerConfig, { HOME_DOMAIN: long })).toContain("HOME_DOMAIN is over 59 bytes")
      expect(yield* refusal(ServerConfig, { WEB_AUTH_DOMAIN: `${long}.com` })).toContain("WEB_AUTH_DOMAIN is over 64 bytes")
      const derived = yield* refusal(ServerConfig, { PUBLIC_URL: `https://${long}` })
      expect(derived).toContain(`HOME_DOMAIN (the host of PUBLIC_URL, ${long}) is over 59 bytes`)
      expect(derived).toContain("set HOME_DOMAIN to a shorter domain")
      const fits = yield* under({ PUBLIC_URL: `https://${long}`, HOME_DOMAIN: "payroll.example.com" })(ServerConfig)
      expect(fits).toMatchObject({ homeDomain: "payroll.example.com", webAuthDomain: long })
    }))

  it.effect("CHALLENGE_RATE_LIMIT / CHALLENGE_RATE_WINDOW: 300 a minute by default, both positive", () =>
    Effect.gen(function*() {
      const read = yield* under({})(ChallengeLimitsConfig)
      expect(read.requests).toBe(300)
      expect(Duration.toMillis(read.window)).toBe(60_000)
      expect((yield* under({ CHALLENGE_RATE_LIMIT: "5", CHALLENGE_RATE_WINDOW: "10 seconds" })(ChallengeLimitsConfig)).requests).toBe(5)
      for (const limit of ["0", "-1", "many", "1.5"]) {
        expect(yield* refusal(AllConfig, { CHALLENGE_RATE_LIMIT: limit }), limit).toContain("CHALLENGE_RATE_LIMIT")
      }
      for (const window of ["0 seconds", "soon"]) {
        expect(yield* refusal(AllConfig, { CHALLENGE_RATE_WINDOW: window }), window).toContain("CHALLENGE_RATE_WINDOW")
      }
    }))

  it.effect("PUBLIC_URL: http(s), and required when NODE_ENV=production, saying why", () =>
    Effect.gen(function*() {
      expect(yield* refusal(ServerConfig, { PUBLIC_URL: "payroll.example.com" })).toContain("PUBLIC_URL is not an http(s) URL")
      const production = yield* refusal(ServerConfig, { NODE_ENV: "production" })
      expect(production).toMatch(/PUBLIC_URL is required when NODE_ENV=production: the session JWT issuer and the URLs in stellar\.toml/)
      expect(production).toMatch(/a restart on another port .* would void every session/)
      const set = yield* under({ NODE_ENV: "production", PUBLIC_URL: "https://payroll.example.com/" })(ServerConfig)
      expect(set).toMatchObject({ production: true, publicUrl: "https://payroll.example.com" })
    }))

  it.effect("AUTH_RATE_IPV6_PREFIX: 64 by default, 1 to 128", () =>
    Effect.gen(function*() {
      expect((yield* under({})(AuthLimitsConfig)).ipv6Prefix).toBe(64)
      expect((yield* under({ AUTH_RATE_IPV6_PREFIX: "48" })(AuthLimitsConfig)).ipv6Prefix).toBe(48)
      for (const bits of ["0", "129", "64.5", "sixty-four"]) {
        expect(yield* refusal(AuthLimitsConfig, { AUTH_RATE_IPV6_PREFIX: bits }), bits).toContain("AUTH_RATE_IPV6_PREFIX")
      }
    }))
})

describe("secrets and amounts are checked before the database starts", () => {
  it.effect("a short JWT_SECRET, a malformed seed, a bad FAUCET_AMOUNT or Privy key, production without keys: all named at once", () =>
    Effect.gen(function*() {
      const said = yield* refusal(AllConfig, {
        JWT_SECRET: "too short",
        SPONSOR_SECRET: "SNOTASEED",
        CHANNEL_SECRETS: "SBAD,SWORSE",
        FAUCET_AMOUNT: "-5",
        PRIVY_VERIFICATION_KEY: "-----BEGIN PUBLIC KEY-----\\nnot a key\\n-----END PUBLIC KEY-----"
      })
      for (
        const why of [
          "JWT_SECRET must be at least 32 bytes",
          "SPONSOR_SECRET is not a Stellar secret seed",
          "CHANNEL_SECRETS must be Stellar secret seeds",
          "FAUCET_AMOUNT must be a positive decimal",
          "PRIVY_VERIFICATION_KEY is not an ES256 public key"
        ]
      ) expect(said).toContain(why)
      expect(said).not.toContain("SNOTASEED")
      expect(said).not.toContain("too short")
      const production = yield* refusal(AllConfig, { NODE_ENV: "production", PUBLIC_URL: "https://payroll.example.com" })
      expect(production).toContain("NODE_ENV=production requires JWT_SECRET, SEP10_SIGNING_SECRET, SPONSOR_SECRET, FAUCET_SECRET")
    }))

  it.effect("FAUCET_AMOUNT takes what the faucet can pay; a real ES256 key passes", () =>
    Effect.gen(function*() {
      for (const amount of ["100", "0.0000001", "12.5"]) expect((yield* under({ FAUCET_AMOUNT: amount })(FundingConfig)).faucetAmount).toBe(amount)
      for (const amount of ["0", "0.00", "1.12345678", "abc", "1e3"]) {
        expect(yield* refusal(FundingConfig, { FAUCET_AMOUNT: amount }), amount).toContain("FAUCET_AMOUNT must be a positive decimal")
      }
      const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" })
      const pem = publicKey.export({ type: "spki", format: "pem" }).toString()
      expect(Option.isSome((yield* under({ PRIVY_VERIFICATION_KEY: pem })(PrivyConfig)).verificationKey)).toBe(true)
      const { publicKey: rsa } = generateKeyPairSync("rsa", { modulusLength: 1024 })
      expect(yield* refusal(PrivyConfig, { PRIVY_VERIFICATION_KEY: rsa.export({ type: "spki", format: "pem" }).toString() }))
        .toContain("PRIVY_VERIFICATION_KEY is not an ES256 public key")
    }))
})
