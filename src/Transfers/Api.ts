import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { Conflict, Forbidden, NotFound, NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import { SponsorRefused, TransferRejected, TransferRequest, TransferResult, TransferStatus, TransferTimeout } from "../Domain/Transfer.ts"

const hash = HttpApiSchema.param("hash", Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{64}$/)))

export class TransfersApi extends HttpApiGroup.make("transfers")
  .add(
    HttpApiEndpoint.post("transfer", "/transfer")
      .setPayload(TransferRequest)
      .addSuccess(TransferResult)
      .addError(Forbidden)
      .addError(SponsorRefused)
      .addError(TransferRejected)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .addError(TransferTimeout)
      .addError(Conflict)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Fork B: fee-bumps a client-signed confidential_transfer transaction with the service's sponsor and waits for the ledger"
      )
  )
  .add(
    HttpApiEndpoint.get("status")`/transfers/${hash}`
      .addSuccess(TransferStatus)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Transfers")
{}
