import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { InvalidRequest, NotImplemented, Unauthorized, UpstreamUnavailable } from "../Domain/Errors.ts"
import { SessionToken } from "../Domain/Session.ts"
import { SignInRateLimit } from "./Security.ts"

export const ChallengeParams = Schema.Struct({
  account: Schema.String,
  home_domain: Schema.optional(Schema.String),
  client_domain: Schema.optional(Schema.String),
  memo: Schema.optional(Schema.String)
})

export class Challenge extends Schema.Class<Challenge>("Challenge")({
  transaction: Schema.String,
  network_passphrase: Schema.String
}) {}

export class SignedChallenge extends Schema.Class<SignedChallenge>("SignedChallenge")({
  transaction: Schema.String.pipe(Schema.maxLength(16_384))
}) {}

export class PrivySignIn extends Schema.Class<PrivySignIn>("PrivySignIn")({
  /** The Privy access token. */
  token: Schema.String.pipe(Schema.maxLength(16_384)),
  /** Optionally the Privy identity token (`privy-id-token`): its verified email lets `GET /me` find an invite. */
  identityToken: Schema.optional(Schema.String.pipe(Schema.maxLength(65_536)))
}) {}

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.get("sep10Challenge", "/auth/sep10/challenge")
      .setUrlParams(ChallengeParams)
      .addSuccess(Challenge)
      .addError(InvalidRequest)
  )
  .add(
    HttpApiEndpoint.post("sep10Verify", "/auth/sep10/verify")
      .setPayload(SignedChallenge)
      .addSuccess(SessionToken)
      .addError(InvalidRequest)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Description, "A challenge that fails verification (signatures, expiry, reuse) is 400")
  )
  .add(
    HttpApiEndpoint.get("webAuthChallenge", "/auth")
      .setUrlParams(ChallengeParams)
      .addSuccess(Challenge)
      .addError(InvalidRequest)
      .annotate(OpenApi.Description, "SEP-10 WEB_AUTH_ENDPOINT, challenge step")
  )
  .add(
    HttpApiEndpoint.post("webAuthToken", "/auth")
      .setPayload(SignedChallenge)
      .addSuccess(SessionToken)
      .addError(InvalidRequest)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Description, "SEP-10 WEB_AUTH_ENDPOINT, token step (JSON or form body); a challenge that fails verification is 400")
  )
  .add(
    HttpApiEndpoint.post("privy", "/auth/privy")
      .setPayload(PrivySignIn)
      .addSuccess(SessionToken)
      .addError(Unauthorized)
      .addError(NotImplemented)
  )
  .middleware(SignInRateLimit)
  .add(
    HttpApiEndpoint.get("stellarToml", "/.well-known/stellar.toml")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/plain" }))
  )
  .annotate(OpenApi.Title, "Sign-in")
{}
