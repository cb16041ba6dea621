import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { documented } from "../Domain/Documented.ts"
import { Conflict, InvalidRequest, NotImplemented, RateLimited, UpstreamUnavailable } from "../Domain/Errors.ts"
import { StellarAddress } from "../Domain/Stellar.ts"
import { SponsorRefused, TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"

const VaultStateFields = {
  vault: Schema.propertySignature(Schema.String).annotations({
    description: "The vault contract (C...): `VAULT_CONTRACT`, else the confidential token contract itself"
  }),
  held: Schema.propertySignature(Schema.String).annotations({
    description: "The vault's USDC balance, a decimal string with 7 decimal places"
  })
}

export class VaultState extends Schema.Class<VaultState>("VaultState")(VaultStateFields, documented(VaultStateFields, {
  description: "What the bridged-USDC vault holds",
  examples: [{ vault: "CDYHHQTIDVD5IA2H4UFZR2H5ERTLCEZS5ZFVSPAY2OVBY4KG53N5VWHB", held: "125000.0000000" }]
})) {}

const FaucetRequestFields = {
  address: Schema.optional(StellarAddress).annotations({
    description: "Who receives the USDC (G... account or C... contract); default: the signed-in wallet (required " +
      "for an email session)"
  })
}

export class FaucetRequest extends Schema.Class<FaucetRequest>("FaucetRequest")(
  FaucetRequestFields,
  documented(FaucetRequestFields, {
    description: "A testnet USDC grant",
    examples: [{ address: StellarAddress.make("GCNGZAOQEDL6LCXS4RFRSKP47YYJKRYVFBJIOYYTYWK4H4HSTURRUREM") }]
  })
) {}

export class FundingApi extends HttpApiGroup.make("funding")
  .add(
    HttpApiEndpoint.get("vault", "/funding/vault")
      .addSuccess(VaultState)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Summary, "Vault balance")
      .annotate(
        OpenApi.Description,
        "The USDC the vault contract holds (the USDC contract's `balance` of it, read by simulation), with 7 decimal " +
          "places. The vault is the confidential token contract, which holds the pooled USDC, unless " +
          "`VAULT_CONTRACT` names another. Needs a session (any sign-in method). 501 when this service has no " +
          "`USDC_CONTRACT` (or no vault); 502 when Stellar RPC cannot be read."
      )
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
      .annotate(OpenApi.Summary, "Testnet USDC from the faucet")
      .annotate(
        OpenApi.Description,
        "Sends `FAUCET_AMOUNT` (100 by default) testnet USDC to the address (default: the signed-in wallet), in a " +
          "transaction fee-bumped by the sponsor, and answers once it is on the ledger; follow it with GET " +
          "/transfers/{hash}. One grant per address per 24 hours. Needs a session (any sign-in method). 400 when an " +
          "email session gives no address; 429 when the address was funded in the last 24 hours, or every faucet " +
          "channel account stayed busy for 10 seconds (try again shortly); 501 off testnet or without " +
          "`USDC_CONTRACT`; 502 when Stellar RPC cannot be reached; 422 when the network rejects or fails the " +
          "transaction; 504 when it is not final in time (it may still land)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Funding")
  .annotate(
    OpenApi.Description,
    "Money for the employer's confidential balance: what the bridged-USDC vault holds, and testnet USDC from the faucet."
  )
{}
