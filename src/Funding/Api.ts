import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { Conflict, InvalidRequest, NotImplemented, RateLimited, UpstreamUnavailable } from "../Domain/Errors.ts"
import { StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused, TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"

export class VaultState extends Schema.Class<VaultState>("VaultState")({
  vault: Schema.String,
  held: Schema.String
}) {}

export class FaucetRequest extends Schema.Class<FaucetRequest>("FaucetRequest")({
  address: Schema.optional(StellarAddress)
}) {}

export class FundingApi extends HttpApiGroup.make("funding")
  .add(
    HttpApiEndpoint.get("vault", "/funding/vault")
      .addSuccess(VaultState)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Description, "The vault contract's USDC balance, as a decimal string with 7 places")
  )
  .add(
    HttpApiEndpoint.post("faucet", "/funding/faucet")
      .setPayload(FaucetRequest)
      .addSuccess(TransferResult)
      .addError(NotImplemented)
      .addError(RateLimited)
      .addError(InvalidRequest)
      .addError(UpstreamUnavailable)
      .addError(TransferRejected)
      .addError(TransferTimeout)
      .addError(SponsorRefused)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Testnet USDC from the faucet, one grant per address per 24 hours")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Funding")
{}
