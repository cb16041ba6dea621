import { StrKey } from "@stellar/stellar-sdk"
import { Config, ConfigError, Duration, Either, Option, Redacted } from "effect"
import { createPublicKey } from "node:crypto"
import { isIP } from "node:net"
import { isProxyEntry } from "./Http/ClientAddress.ts"
import { DatabaseConfig } from "./Sql/DatabaseConfig.ts"

const DEFAULT_PASSPHRASE = "Test SDF Network ; September 2015"

export const TESTNET_PASSPHRASE = DEFAULT_PASSPHRASE

const optionalRedacted = (name: string) => Config.option(Config.redacted(name))
const optionalString = (name: string) =>
  Config.option(Config.nonEmptyString(name))

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

const httpUrl = (name: string, example: string) =>
  Config.string(name).pipe(
    Config.validate({ message: `${name} is not an http(s) URL (such as ${example})`, validation: isHttpUrl })
  )

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i

/**
 * A name ending in a number (`256.1.1.1`, `foo.123`, `example.0x1`) is no host name (RFC 3696 §2): URL parsers read it
 * as an IPv4 address, and the default PUBLIC_URL could not be built from it.
 */
const NUMERIC_LAST_LABEL = /(^|\.)(\d+|0x[0-9a-f]*)\.?$/i

const isHost = (host: string) => isIP(host) !== 0 || (HOSTNAME.test(host) && !NUMERIC_LAST_LABEL.test(host))

/** SEP-10 puts `<HOME_DOMAIN> auth` and WEB_AUTH_DOMAIN in manage_data entries, whose keys and values hold 64 bytes. */
const MANAGE_DATA_BYTES = 64

const tooLong = (name: string, value: string, max: number, derived: boolean) =>
  Buffer.byteLength(value) <= max ? [] : [
    ConfigError.InvalidData(
      [name],
      `${name} ${derived ? `(the host of PUBLIC_URL, ${value}) ` : ""}is over ${max} bytes: SEP-10 challenges carry it in a ` +
        `manage_data entry of at most ${MANAGE_DATA_BYTES} bytes${derived ? `; set ${name} to a shorter domain` : ""}`
    )
  ]

/** The session JWT issuer and stellar.toml's URLs derive from PUBLIC_URL: the port must not slip into them. */
const PUBLIC_URL_REQUIRED = "PUBLIC_URL is required when NODE_ENV=production: the session JWT issuer and the URLs in " +
  "stellar.toml derive from it, and without it they name http://HOST:PORT, so a restart on another port (or host) " +
  "would void every session"

const Production = Config.string("NODE_ENV").pipe(Config.map((env) => env === "production"), Config.withDefault(false))

/** Checked with NODE_ENV on its own, so that its error is reported beside any other setting's. */
const PublicUrl = Config.all({
  url: Config.option(httpUrl("PUBLIC_URL", "https://payroll.example.com")),
  production: Production
}).pipe(Config.mapOrFail(({ production, url }) =>
  production && Option.isNone(url)
    ? Either.left(ConfigError.MissingData(["PUBLIC_URL"], PUBLIC_URL_REQUIRED))
    : Either.right({ url, production })
))

/** Where the service listens and how it names itself. */
export const ServerConfig = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(
    Config.validate({
      message: "HOST is not an IP address or a host name (such as 127.0.0.1, :: or localhost; a name does not end in a number)",
      validation: isHost
    }),
    Config.withDefault("127.0.0.1")
  ),
  publicUrl: PublicUrl,
  homeDomain: optionalString("HOME_DOMAIN"),
  webAuthDomain: optionalString("WEB_AUTH_DOMAIN")
}).pipe(
  // Each derived value is checked too, so that a start never fails later on a setting it did not name.
  Config.mapOrFail((c) => {
    const listening = `http://${isIP(c.host) === 6 ? `[${c.host}]` : c.host}:${c.port}`
    const text = Option.getOrElse(c.publicUrl.url, () => listening)
    if (!URL.canParse(text)) {
      return Either.left(ConfigError.InvalidData(["HOST"], `HOST ${c.host} does not make a URL for the default PUBLIC_URL (${text})`))
    }
    const publicUrl = new URL(text)
    const homeDomain = Option.getOrElse(c.homeDomain, () => publicUrl.host)
    const webAuthDomain = Option.getOrElse(c.webAuthDomain, () => publicUrl.hostname)
    const refused = [
      ...tooLong("HOME_DOMAIN", homeDomain, MANAGE_DATA_BYTES - " auth".length, Option.isNone(c.homeDomain)),
      ...tooLong("WEB_AUTH_DOMAIN", webAuthDomain, MANAGE_DATA_BYTES, Option.isNone(c.webAuthDomain))
    ]
    if (refused.length > 0) return Either.left(refused.reduce((all, e) => ConfigError.And(all, e)))
    return Either.right({
      port: c.port,
      host: c.host,
      production: c.publicUrl.production,
      publicUrl: publicUrl.toString().replace(/\/$/, ""),
      homeDomain,
      webAuthDomain
    })
  })
)
export type ServerConfig = Config.Config.Success<typeof ServerConfig>

export { DatabaseConfig }

/** The network the service works on; the proving CRS it serves is checked against it too (Crs/Config.ts). */
export const NetworkPassphrase = Config.string("NETWORK_PASSPHRASE").pipe(Config.withDefault(DEFAULT_PASSPHRASE))

export const StellarConfig = Config.all({
  rpcUrl: httpUrl("STELLAR_RPC_URL", "https://soroban-testnet.stellar.org").pipe(
    Config.withDefault("https://soroban-testnet.stellar.org")
  ),
  networkPassphrase: NetworkPassphrase,
  friendbotUrl: httpUrl("FRIENDBOT_URL", "https://friendbot.stellar.org").pipe(
    Config.withDefault("https://friendbot.stellar.org")
  ),
  confidentialTokenContract: optionalString("CONFIDENTIAL_TOKEN_CONTRACT"),
  rpcTimeout: Config.duration("STELLAR_RPC_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
})
export type StellarConfig = Config.Config.Success<typeof StellarConfig>

/** Operational secrets; any left unset is generated into DATA_DIR outside production. */
/** A Stellar secret seed (S...), checked when the setting is read; the value itself is never said. */
const seed = (name: string) =>
  Config.redacted(name).pipe(Config.validate({
    message: `${name} is not a Stellar secret seed (S...)`,
    validation: (secret) => StrKey.isValidEd25519SecretSeed(Redacted.value(secret).trim())
  }))

const GENERATED_SECRETS = ["JWT_SECRET", "SEP10_SIGNING_SECRET", "SPONSOR_SECRET", "FAUCET_SECRET"] as const

/**
 * The session key and the operational keys, each checked as it is read (so that a bad one stops the start before the
 * database, named with the rest); unset ones are generated into DATA_DIR, except under NODE_ENV=production.
 */
export const SecretsConfig = Config.all({
  jwtSecret: Config.option(Config.redacted("JWT_SECRET").pipe(Config.validate({
    message: "JWT_SECRET must be at least 32 bytes",
    validation: (secret) => Buffer.byteLength(Redacted.value(secret)) >= 32
  }))),
  sep10SigningSecret: Config.option(seed("SEP10_SIGNING_SECRET")),
  sponsorSecret: Config.option(seed("SPONSOR_SECRET")),
  faucetSecret: Config.option(seed("FAUCET_SECRET")),
  channelSecrets: Config.option(Config.redacted("CHANNEL_SECRETS").pipe(Config.validate({
    message: "CHANNEL_SECRETS must be Stellar secret seeds (S...), comma-separated",
    validation: (secrets) =>
      Redacted.value(secrets).split(",").map((s) => s.trim()).filter((s) => s.length > 0).every(StrKey.isValidEd25519SecretSeed)
  }))),
  production: Production
}).pipe(Config.mapOrFail((secrets) => {
  const missing = GENERATED_SECRETS.filter((name) =>
    Option.isNone({
      JWT_SECRET: secrets.jwtSecret,
      SEP10_SIGNING_SECRET: secrets.sep10SigningSecret,
      SPONSOR_SECRET: secrets.sponsorSecret,
      FAUCET_SECRET: secrets.faucetSecret
    }[name])
  )
  return secrets.production && missing.length > 0
    ? Either.left(ConfigError.MissingData([...missing], `NODE_ENV=production requires ${missing.join(", ")} (keys are generated only in development)`))
    : Either.right(secrets)
}))

/** Whether a PEM is an ES256 (P-256) public key, as Privy's verification key is; `\\n` stands for a newline. */
const isEs256PublicKey = (pem: string) => {
  try {
    const key = createPublicKey(pem.replace(/\\n/g, "\n"))
    return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1"
  } catch {
    return false
  }
}

export const PrivyConfig = Config.all({
  appId: optionalString("PRIVY_APP_ID"),
  verificationKey: Config.option(Config.redacted("PRIVY_VERIFICATION_KEY").pipe(Config.validate({
    message: "PRIVY_VERIFICATION_KEY is not an ES256 public key in PEM (SPKI) form",
    validation: (pem) => isEs256PublicKey(Redacted.value(pem))
  }))),
  jwksUrl: optionalString("PRIVY_JWKS_URL")
})

/** Sign-in attempts per client per window; an IPv6 client is its network of AUTH_RATE_IPV6_PREFIX bits. */
export const AuthLimitsConfig = Config.all({
  requests: Config.integer("AUTH_RATE_LIMIT").pipe(Config.withDefault(30)),
  window: Config.duration("AUTH_RATE_WINDOW").pipe(Config.withDefault(Duration.minutes(1))),
  ipv6Prefix: Config.integer("AUTH_RATE_IPV6_PREFIX").pipe(
    Config.validate({
      message: "AUTH_RATE_IPV6_PREFIX must be a prefix length from 1 to 128 (bits of an IPv6 address that name one client)",
      validation: (bits) => bits >= 1 && bits <= 128
    }),
    Config.withDefault(64)
  )
})

/** SEP-10 challenges per client per window: signing costs CPU, so a client cannot ask for them without end. */
export const ChallengeLimitsConfig = Config.all({
  requests: Config.integer("CHALLENGE_RATE_LIMIT").pipe(
    Config.validate({ message: "CHALLENGE_RATE_LIMIT must be a positive integer (challenges per client per window)", validation: (n) => n >= 1 }),
    Config.withDefault(300)
  ),
  window: Config.duration("CHALLENGE_RATE_WINDOW").pipe(
    Config.validate({ message: "CHALLENGE_RATE_WINDOW must be a positive duration (such as 1 minute)", validation: (d) => Duration.toMillis(d) > 0 }),
    Config.withDefault(Duration.minutes(1))
  )
})

const commaList = (name: string) =>
  Config.string(name).pipe(
    Config.map((raw) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)),
    Config.option
  )

/** What the fee sponsor agrees to pay for. */
export const SponsorConfig = Config.all({
  allowedContracts: commaList("SPONSOR_ALLOWED_CONTRACTS"),
  maxInnerFee: Config.integer("SPONSOR_MAX_INNER_FEE").pipe(Config.withDefault(10_000_000)),
  quota: Config.integer("SPONSOR_QUOTA").pipe(Config.withDefault(100)),
  quotaWindow: Config.duration("SPONSOR_QUOTA_WINDOW").pipe(Config.withDefault(Duration.hours(24)))
})

/** How submissions are followed to the ledger. */
export const SubmissionConfig = Config.all({
  pollMargin: Config.duration("TRANSFER_POLL_MARGIN").pipe(Config.withDefault(Duration.seconds(10))),
  reconcileInterval: Config.duration("RECONCILE_INTERVAL").pipe(Config.withDefault(Duration.seconds(5))),
  jobsPerInstance: Config.integer("BATCH_WORKER_JOBS").pipe(Config.withDefault(128)),
  accountsPerJob: Config.integer("BATCH_ACCOUNTS_PER_JOB").pipe(Config.withDefault(32))
})

/** Draining on SIGTERM/SIGINT, riding out database outages, and pruning what is no longer needed. */
export const OperationsConfig = Config.all({
  shutdownTimeout: Config.duration("SHUTDOWN_TIMEOUT").pipe(Config.withDefault(Duration.seconds(30))),
  workerMaxBackoff: Config.duration("WORKER_MAX_BACKOFF").pipe(Config.withDefault(Duration.seconds(30))),
  databaseConnectTimeout: Config.duration("DATABASE_CONNECT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
  retention: Config.duration("RETENTION").pipe(Config.withDefault(Duration.days(30))),
  housekeepingInterval: Config.duration("HOUSEKEEPING_INTERVAL").pipe(Config.withDefault(Duration.minutes(5)))
})
export type OperationsConfig = Config.Config.Success<typeof OperationsConfig>

/** The bridged-USDC vault and the testnet faucet. */
export const FundingConfig = Config.all({
  usdcContract: optionalString("USDC_CONTRACT"),
  vaultContract: optionalString("VAULT_CONTRACT"),
  faucetAmount: Config.string("FAUCET_AMOUNT").pipe(
    Config.validate({
      message: "FAUCET_AMOUNT must be a positive decimal with at most 7 places (USDC per grant)",
      // As Funding/Stroops.ts parses it: up to 12 whole digits and 7 decimals, above zero.
      validation: (amount) => /^\d{1,12}(?:\.\d{1,7})?$/.test(amount.trim()) && /[1-9]/.test(amount)
    }),
    Config.withDefault("100")
  )
})

/** Circle's USDC issuer on the Stellar testnet. */
export const TESTNET_USDC_ISSUER = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"

/** What stellar.toml (SEP-1) publishes about the organization; ORG_URL defaults to PUBLIC_URL. */
export const StellarTomlConfig = Config.all({
  orgName: Config.nonEmptyString("ORG_NAME").pipe(Config.withDefault("Confidential Contractor Payroll")),
  orgUrl: optionalString("ORG_URL"),
  orgDescription: optionalString("ORG_DESCRIPTION"),
  orgOfficialEmail: optionalString("ORG_OFFICIAL_EMAIL"),
  orgSupportEmail: optionalString("ORG_SUPPORT_EMAIL"),
  usdcIssuer: Config.string("USDC_ISSUER").pipe(
    Config.validate({ message: "USDC_ISSUER must be a Stellar account address (G...)", validation: StrKey.isValidEd25519PublicKey }),
    Config.withDefault(TESTNET_USDC_ISSUER)
  )
})

/** Whose `X-Forwarded-For` the sign-in rate limit believes: addresses or CIDR blocks, default none. */
export const ClientAddressConfig = Config.all({
  trustedProxies: commaList("TRUSTED_PROXIES").pipe(
    Config.map(Option.getOrElse((): ReadonlyArray<string> => [])),
    Config.validate({
      message: "TRUSTED_PROXIES must list IP addresses or CIDR blocks, comma-separated",
      validation: (entries) => entries.every(isProxyEntry)
    })
  )
})

/** Log lines: `json` (the default when NODE_ENV=production), `logfmt` (the default otherwise) or `pretty`. */
export const LogConfig = Config.all({
  format: Config.option(Config.literal("json", "logfmt", "pretty")("LOG_FORMAT")),
  level: Config.option(Config.logLevel("LOG_LEVEL")),
  production: Config.string("NODE_ENV").pipe(Config.map((env) => env === "production"), Config.withDefault(false))
}).pipe(Config.map(({ format, level, production }) => ({
  format: Option.getOrElse(format, () => (production ? "json" as const : "logfmt" as const)),
  level
})))

/** `GET /metrics`; when METRICS_TOKEN is set, scrapes must bear it. */
export const MetricsConfig = Config.all({
  token: optionalRedacted("METRICS_TOKEN")
})

/** OTLP/HTTP trace export, on only when an endpoint is set (the standard OpenTelemetry variables). */
export const TracingConfig = Config.all({
  endpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: optionalString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  headers: optionalRedacted("OTEL_EXPORTER_OTLP_HEADERS"),
  serviceName: Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("confidential-payroll")),
  exportInterval: Config.integer("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5000), Config.map(Duration.millis))
}).pipe(Config.map((c) => ({
  url: Option.orElse(c.tracesEndpoint, () => Option.map(c.endpoint, (base) => `${base.replace(/\/+$/, "")}/v1/traces`)),
  headers: c.headers,
  serviceName: c.serviceName,
  exportInterval: c.exportInterval
})))

const isOrigin = (origin: string) => {
  if (origin === "*") return true
  try {
    const url = new URL(origin)
    return (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" && url.search === "" &&
      url.hash === "" && url.username === "" && url.password === ""
  } catch {
    return false
  }
}

/**
 * Browser origins allowed to call the API (`*` for any); default none, and then no CORS headers are sent. `null` is
 * refused rather than ignored: whoever lists it means to allow something, and `null` would allow anyone.
 */
export const CorsConfig = Config.all({
  origins: commaList("CORS_ORIGINS").pipe(
    Config.map(Option.getOrElse((): ReadonlyArray<string> => [])),
    Config.validate({
      message: "CORS_ORIGINS must not list null: sandboxed frames, file: pages and redirects all send it, so it would " +
        "allow any page",
      validation: (origins) => !origins.some((origin) => origin.toLowerCase() === "null")
    }),
    Config.validate({
      message: "CORS_ORIGINS must list origins such as https://app.example.com (scheme, host, optional port), or *",
      validation: (origins) => origins.every(isOrigin)
    }),
    Config.map((origins) => origins.map((origin) => (origin === "*" ? origin : new URL(origin).origin)))
  )
})

/** The web console at `/app` (console/): on unless `CONSOLE=false`. */
export const ConsoleConfig = Config.all({
  enabled: Config.string("CONSOLE").pipe(
    Config.validate({
      message: "CONSOLE must be true or false (false turns the web console at /app off)",
      validation: (value) => /^(true|false)$/i.test(value.trim())
    }),
    Config.map((value) => value.trim().toLowerCase() === "true"),
    Config.withDefault(true)
  )
})

/** The shared settings at once; src/Server/Settings.ts adds the features' own, and the start reads them all first. */
export const AllConfig = Config.all([
  ServerConfig,
  DatabaseConfig,
  StellarConfig,
  SecretsConfig,
  PrivyConfig,
  AuthLimitsConfig,
  ChallengeLimitsConfig,
  SponsorConfig,
  SubmissionConfig,
  OperationsConfig,
  FundingConfig,
  StellarTomlConfig,
  ClientAddressConfig,
  LogConfig,
  MetricsConfig,
  TracingConfig,
  CorsConfig,
  ConsoleConfig
])
