import { describe, expect, it } from "@effect/vitest"
import { type Config, ConfigProvider, Effect, Option, Redacted } from "effect"
import { AllConfig, AuthLimitsConfig, DatabaseConfig, ServerConfig } from "../src/Config.ts"

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
