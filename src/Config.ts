import { StrKey } from "@stellar/stellar-sdk"
import { Config, Duration, Option } from "effect"

const DEFAULT_PASSPHRASE = "Test SDF Network ; September 2015"

export const TESTNET_PASSPHRASE = DEFAULT_PASSPHRASE

const optionalRedacted = (name: string) => Config.option(Config.redacted(name))
const optionalString = (name: string) =>
  Config.option(Config.nonEmptyString(name))

/** Where the service listens and how it names itself. */
export const ServerConfig = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  publicUrl: optionalString("PUBLIC_URL"),
  homeDomain: optionalString("HOME_DOMAIN"),
  webAuthDomain: optionalString("WEB_AUTH_DOMAIN"),
  production: Config.string("NODE_ENV").pipe(
    Config.map((env) => env === "production"),
    Config.withDefault(false)
  )
}).pipe(
  Config.map((c) => {
    const publicUrl = new URL(Option.getOrElse(c.publicUrl, () => `http://${c.host}:${c.port}`))
    const base = publicUrl.toString().replace(/\/$/, "")
    return {
      port: c.port,
      host: c.host,
      production: c.production,
      publicUrl: base,
      homeDomain: Option.getOrElse(c.homeDomain, () => publicUrl.host),
      webAuthDomain: Option.getOrElse(c.webAuthDomain, () => publicUrl.hostname)
    }
  })
)
export type ServerConfig = Config.Config.Success<typeof ServerConfig>

export const DatabaseConfig = Config.all({
  url: optionalRedacted("DATABASE_URL"),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))
})

export const StellarConfig = Config.all({
  rpcUrl: Config.string("STELLAR_RPC_URL").pipe(Config.withDefault("https://soroban-testnet.stellar.org")),
  networkPassphrase: Config.string("NETWORK_PASSPHRASE").pipe(Config.withDefault(DEFAULT_PASSPHRASE)),
  friendbotUrl: Config.string("FRIENDBOT_URL").pipe(Config.withDefault("https://friendbot.stellar.org")),
  confidentialTokenContract: optionalString("CONFIDENTIAL_TOKEN_CONTRACT"),
  rpcTimeout: Config.duration("STELLAR_RPC_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
})
export type StellarConfig = Config.Config.Success<typeof StellarConfig>

/** Operational secrets; any left unset is generated into DATA_DIR outside production. */
export const SecretsConfig = Config.all({
  jwtSecret: optionalRedacted("JWT_SECRET"),
  sep10SigningSecret: optionalRedacted("SEP10_SIGNING_SECRET"),
  sponsorSecret: optionalRedacted("SPONSOR_SECRET"),
  faucetSecret: optionalRedacted("FAUCET_SECRET"),
  channelSecrets: Config.option(Config.redacted("CHANNEL_SECRETS"))
})

export const PrivyConfig = Config.all({
  appId: optionalString("PRIVY_APP_ID"),
  verificationKey: optionalRedacted("PRIVY_VERIFICATION_KEY"),
  jwksUrl: optionalString("PRIVY_JWKS_URL")
})

export const AuthLimitsConfig = Config.all({
  requests: Config.integer("AUTH_RATE_LIMIT").pipe(Config.withDefault(30)),
  window: Config.duration("AUTH_RATE_WINDOW").pipe(Config.withDefault(Duration.minutes(1)))
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

/** The bridged-USDC vault and the testnet faucet. */
export const FundingConfig = Config.all({
  usdcContract: optionalString("USDC_CONTRACT"),
  vaultContract: optionalString("VAULT_CONTRACT"),
  faucetAmount: Config.string("FAUCET_AMOUNT").pipe(Config.withDefault("100"))
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
