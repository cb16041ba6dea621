import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { documented } from "../Domain/Documented.ts"
import { InvalidRequest, NotImplemented, Unauthorized, UpstreamUnavailable } from "../Domain/Errors.ts"
import { SessionToken } from "../Domain/Session.ts"
import { ChallengeRateLimit } from "../RateLimit/ChallengeRateLimit.ts"
import { SignInRateLimit } from "../RateLimit/SignInRateLimit.ts"

export const ChallengeParams = Schema.Struct({
  account: Schema.propertySignature(Schema.String).annotations({
    description: "The Stellar account (G...) signing in: the challenge asks it to sign"
  }),
  home_domain: Schema.optional(Schema.String).annotations({
    description: "The SEP-10 home domain, if the wallet sends one: it must be this service's (`HOME_DOMAIN`)"
  }),
  client_domain: Schema.optional(Schema.String).annotations({ description: "Accepted and ignored" }),
  memo: Schema.optional(Schema.String).annotations({ description: "Not supported: a request with a memo is refused (400)" })
})

/** A challenge as the service builds it (testnet, home domain payroll.example.com), for the examples. */
const EXAMPLE_CHALLENGE = "AAAAAgAAAAC1b0pTqXSEA6U59lWWC8Bz/4bzug4GEjXIQPh6vfDx6gAAAMgAAAAAAAAAAAAAAAEAAAAAawU6pwAAAABrBTvTAAAA" +
  "AAAAAAIAAAABAAAAAJpsgdAg1+WK8uRLGSn8/jCVRxUoUodjE8WVw/DynSMaAAAACgAAABhwYXlyb2xsLmV4YW1wbGUuY29tIGF1dGgAAAABAAAAQHNNbHNi" +
  "SmFaSXV3OWJEMVRYSlBaVWJsMG5lOXRUSXAwaVVpN2kxd25udlBFT0Z3ZExjUzU0L1l5elcxSWNydlUAAAABAAAAALVvSlOpdIQDpTn2VZYLwHP/hvO6DgYS" +
  "NchA+Hq98PHqAAAACgAAAA93ZWJfYXV0aF9kb21haW4AAAAAAQAAABNwYXlyb2xsLmV4YW1wbGUuY29tAAAAAAAAAAABvfDx6gAAAEAe/Q8iq74M8QchHZkp" +
  "S9GVHNXaVw6BATD6wHJ/ND90wojoLISIt/hVZERXAfkHUTTJQuu79pIhg4RMImMgQo0L"

const ChallengeFields = {
  transaction: Schema.propertySignature(Schema.String).annotations({
    description: "The challenge transaction (base64 XDR), signed by the service: valid for 5 minutes, usable once"
  }),
  network_passphrase: Schema.propertySignature(Schema.String).annotations({
    description: "The network passphrase to sign it for"
  })
}

export class Challenge extends Schema.Class<Challenge>("Challenge")(ChallengeFields, documented(ChallengeFields, {
  description: "A SEP-10 challenge for the wallet to sign",
  examples: [{ transaction: EXAMPLE_CHALLENGE, network_passphrase: "Test SDF Network ; September 2015" }]
})) {}

const SignedChallengeFields = {
  transaction: Schema.propertySignature(Schema.String.pipe(Schema.maxLength(16_384))).annotations({
    description: "The challenge transaction, signed by the account (by signers reaching its medium threshold when the " +
      "account exists on the ledger), base64 XDR"
  })
}

export class SignedChallenge extends Schema.Class<SignedChallenge>("SignedChallenge")(
  SignedChallengeFields,
  documented(SignedChallengeFields, {
    description: "The challenge, signed by the wallet",
    examples: [{
      transaction: "AAAAAgAAAAC1b0pTqXSEA6U59lWWC8Bz/4bzug4GEjXIQPh6vfDx6gAAAMgAAAAAAAAAAAAAAAEAAAAAawU6pwAAAABrBTvTAAAAAAAAAAIAAAAB" +
        "AAAAAJpsgdAg1+WK8uRLGSn8/jCVRxUoUodjE8WVw/DynSMaAAAACgAAABhwYXlyb2xsLmV4YW1wbGUuY29tIGF1dGgAAAABAAAAQHNNbHNiSmFa" +
        "SXV3OWJEMVRYSlBaVWJsMG5lOXRUSXAwaVVpN2kxd25udlBFT0Z3ZExjUzU0L1l5elcxSWNydlUAAAABAAAAALVvSlOpdIQDpTn2VZYLwHP/hvO6" +
        "DgYSNchA+Hq98PHqAAAACgAAAA93ZWJfYXV0aF9kb21haW4AAAAAAQAAABNwYXlyb2xsLmV4YW1wbGUuY29tAAAAAAAAAAACvfDx6gAAAEAe/Q8i" +
        "q74M8QchHZkpS9GVHNXaVw6BATD6wHJ/ND90wojoLISIt/hVZERXAfkHUTTJQuu79pIhg4RMImMgQo0L8p0jGgAAAEAjRovg8juYPkcZBz+uJBzL" +
        "0i5VZHBI1CbfOlWkUpFHifOxG7AsA5Aps77CAJTaJnrtjMoo2+BvgwGthqxBBFIF"
    }]
  })
) {}

const PrivySignInFields = {
  token: Schema.propertySignature(Schema.String.pipe(Schema.maxLength(16_384))).annotations({
    description: "The Privy access token (ES256, issuer `privy.io`, audience this service's Privy app id)"
  }),
  identityToken: Schema.optional(Schema.String.pipe(Schema.maxLength(65_536))).annotations({
    description: "Optionally the same user's Privy identity token (`privy-id-token`): its verified email goes into " +
      "the session, so that GET /me can find an invite made for that email"
  })
}

export class PrivySignIn extends Schema.Class<PrivySignIn>("PrivySignIn")(PrivySignInFields, documented(PrivySignInFields, {
  description: "Privy tokens of an email sign-in",
  examples: [{
    token: "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOi...",
    identityToken: "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJsaW5rZWRfYWNjb3VudHMiOi..."
  }]
})) {}

const RATE_LIMITED = "429 when this client has made more than `AUTH_RATE_LIMIT` sign-in requests (the token steps " +
  "`POST /auth`, `POST /auth/sep10/verify` and `POST /auth/privy`) in `AUTH_RATE_WINDOW` (30 a minute by default, " +
  "counted across the deployment), with `Retry-After`; every answer carries `RateLimit-Policy` and `RateLimit`."

const ANY_ORIGIN = "Every answer, errors included, carries `Access-Control-Allow-Origin: *` whatever `CORS_ORIGINS` " +
  "says, and preflights (`OPTIONS`) are answered, as SEP-10 requires of its endpoints."

const CHALLENGE_LIMITED = "429 when this client has asked for more than `CHALLENGE_RATE_LIMIT` challenges (at " +
  "`GET /auth/sep10/challenge` and `GET /auth` together) in `CHALLENGE_RATE_WINDOW` (300 a minute by default, counted " +
  "across the deployment, apart from the sign-in limit), with `Retry-After`; every answer carries `RateLimit-Policy` " +
  "and `RateLimit`."

const CHALLENGE = "Public: no session. Stateless: the challenge carries its nonce and expiry under the service's " +
  "signature, and nothing is stored until it is verified. 400 when `account` is not a Stellar account address " +
  `(G...), \`home_domain\` is not this service's, or a memo is given. ${CHALLENGE_LIMITED} ${ANY_ORIGIN}`

const VERIFY = "Public: no session. Checks that the challenge is this service's (signed by `SIGNING_KEY`), unexpired " +
  "and unused (its nonce is recorded here once, across every instance), and that it is " +
  "signed by the account: by signers of weight above 0 that reach its medium threshold, read through Stellar RPC (an " +
  "account not on the ledger signs with its own key). Answers a session token valid for one hour. 400 when the " +
  "challenge fails any check (unsigned, signed by a stranger, extra signatures, below the threshold, expired or already " +
  `used); 502 when the account could not be read from Stellar RPC. ${RATE_LIMITED} ${ANY_ORIGIN}`

const TOML_EXAMPLE = `VERSION = "2.7.0"
NETWORK_PASSPHRASE = "Test SDF Network ; September 2015"
SIGNING_KEY = "GC2W6SSTVF2IIA5FHH3FLFQLYBZ77BXTXIHAMERVZBAPQ6V56DY6VZJV"
WEB_AUTH_ENDPOINT = "https://payroll.example.com/auth"
ACCOUNTS = ["GCCLYC4OAG6527ZRVZRFPHHHW7P7XPJGSUHU3477LMR7SWEUXZULZOLS"]

[DOCUMENTATION]
ORG_NAME = "Confidential Contractor Payroll"
ORG_URL = "https://payroll.example.com"

[[CURRENCIES]]
code = "USDC"
issuer = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"
status = "test"
display_decimals = 7
name = "USD Coin"
desc = "Circle's dollar stablecoin, the currency contractor payouts are made in"
is_asset_anchored = true
anchor_asset_type = "fiat"
anchor_asset = "USD"
is_unlimited = true
`

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.get("sep10Challenge", "/auth/sep10/challenge")
      .setUrlParams(ChallengeParams)
      .addSuccess(Challenge)
      .addError(InvalidRequest)
      .middleware(ChallengeRateLimit)
      .annotate(OpenApi.Summary, "Get a SEP-10 challenge")
      .annotate(
        OpenApi.Description,
        "First step of a wallet sign-in (SEP-10): a challenge transaction for the account to sign and send to " +
          `POST /auth/sep10/verify within 5 minutes. ${CHALLENGE}`
      )
  )
  .add(
    HttpApiEndpoint.post("sep10Verify", "/auth/sep10/verify")
      .setPayload(SignedChallenge)
      .addSuccess(SessionToken)
      .addError(InvalidRequest)
      .addError(UpstreamUnavailable)
      .middleware(SignInRateLimit)
      .annotate(OpenApi.Summary, "Sign in with a signed SEP-10 challenge")
      .annotate(OpenApi.Description, `Second step of a wallet sign-in: the signed challenge for a session. ${VERIFY}`)
  )
  .add(
    HttpApiEndpoint.get("webAuthChallenge", "/auth")
      .setUrlParams(ChallengeParams)
      .addSuccess(Challenge)
      .addError(InvalidRequest)
      .middleware(ChallengeRateLimit)
      .annotate(OpenApi.Summary, "Get a SEP-10 challenge (WEB_AUTH_ENDPOINT)")
      .annotate(
        OpenApi.Description,
        "GET /auth/sep10/challenge at the standard SEP-10 `WEB_AUTH_ENDPOINT` that stellar.toml names, for stock " +
          `wallets and SDKs. ${CHALLENGE}`
      )
  )
  .add(
    HttpApiEndpoint.post("webAuthToken", "/auth")
      .setPayload(SignedChallenge)
      .addSuccess(SessionToken)
      .addError(InvalidRequest)
      .addError(UpstreamUnavailable)
      .middleware(SignInRateLimit)
      .annotate(OpenApi.Summary, "Sign in with a signed SEP-10 challenge (WEB_AUTH_ENDPOINT)")
      .annotate(
        OpenApi.Description,
        "POST /auth/sep10/verify at the standard SEP-10 `WEB_AUTH_ENDPOINT`; the body may also be a form " +
          `(\`application/x-www-form-urlencoded\`, field \`transaction\`), as SEP-10 allows. ${VERIFY}`
      )
  )
  .add(
    HttpApiEndpoint.post("privy", "/auth/privy")
      .setPayload(PrivySignIn)
      .addSuccess(SessionToken)
      .addError(Unauthorized)
      .addError(NotImplemented)
      .middleware(SignInRateLimit)
      .annotate(OpenApi.Summary, "Sign in with email (Privy)")
      .annotate(
        OpenApi.Description,
        "Exchanges a Privy access token for a session (valid one hour); with the user's Privy identity token, its " +
          "verified email goes into the session, so that GET /me finds a contractor invite sent to that email. An " +
          "email session cannot submit transfers (they need a wallet). Public: no session. 401 when a token is " +
          "invalid or expired, or the identity token is another user's; 501 when this service is not configured " +
          `for Privy (\`PRIVY_APP_ID\`). ${RATE_LIMITED}`
      )
  )
  .add(
    HttpApiEndpoint.get("stellarToml", "/.well-known/stellar.toml")
      .addSuccess(
        HttpApiSchema.Text({ contentType: "text/plain" }).annotations({
          description: "The SEP-1 stellar.toml",
          examples: [TOML_EXAMPLE]
        })
      )
      .annotate(OpenApi.Summary, "SEP-1 stellar.toml")
      .annotate(
        OpenApi.Description,
        "The SEP-1 (version 2.7.0) file stock Stellar wallets read to sign in here: the network, `SIGNING_KEY` (the " +
          "key that signs SEP-10 challenges), `WEB_AUTH_ENDPOINT`, the service's operational `ACCOUNTS`, the " +
          "organization's `[DOCUMENTATION]` and the USDC currency. Served as `text/plain` with " +
          "`Access-Control-Allow-Origin: *` on every answer (preflights answered too), whatever `CORS_ORIGINS` says. " +
          "Public: no session; not rate-limited (it is built once at start and served from memory)."
      )
  )
  .annotate(OpenApi.Title, "Sign-in")
  .annotate(
    OpenApi.Description,
    "Signing in: with a Stellar wallet (SEP-10: get a challenge, sign it, send it back) or with email through Privy. " +
      "Each answers a session token to send as `Authorization: Bearer <token>`. The token steps are rate-limited " +
      "per client address, and the SEP-10 challenges have a limit of their own; stellar.toml is not limited."
  )
{}
