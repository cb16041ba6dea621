import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { Conflict, Forbidden, NotFound, NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import {
  PreparedTransfer,
  PrepareTransferRequest,
  SimulationRefused,
  SponsorRefused,
  TransferRejected,
  TransferRequest,
  TransferResult,
  TransferStatus,
  TransferTimeout
} from "../Domain/Transfer.ts"

const hash = HttpApiSchema.param(
  "hash",
  Schema.propertySignature(Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{64}$/))).annotations({
    description: "The transfer's hash, 64 hex characters: the fee-bump's (as answers give it) or the signed inner " +
      "transaction's"
  })
)

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
      .annotate(OpenApi.Summary, "Submit a signed confidential transfer")
      .annotate(
        OpenApi.Description,
        "Sponsors and submits one payment: the employer's client encrypts the amount, builds the proof and signs a " +
          "`confidential_transfer`; the service checks it, wraps it in a fee-bump paid by its sponsor account (the " +
          "caller pays no fee), submits it through Stellar RPC and answers once it is on the ledger. For an employer " +
          "signed in with a wallet (SEP-10). Refusals, before anything is sent:\n\n" +
          "- 501 for an email session (it cannot sign transfers);\n" +
          "- 403 when the session belongs to no organization, its role lacks `transfers:submit` (owner, payer), the " +
          "organization requires approvals and no `payoutId` is given, or the transaction's source (or an " +
          "operation's source) is not the signed-in wallet;\n" +
          "- 400 when the envelope is not one base64 v1 transaction (not a fee-bump) with exactly one operation, or " +
          "carries no valid signature of its source for this network;\n" +
          "- 422 `SponsorRefused` when the sponsor's policy refuses it, `rule` naming which: `operation`, `function`, " +
          "`contract`, `arguments`, `auth`, `fee` (over `SPONSOR_MAX_INNER_FEE`), `timebounds` (`maxTime` must be in " +
          "the future and at most 10 minutes ahead) or `quota` (`SPONSOR_QUOTA` per source account per window);\n" +
          "- with `payoutId`: 404 when the payout is not the organization's; 409 when its batch is paused or canceled, " +
          "holds fewer approvals than the organization requires (the answer says how many it has and needs), or " +
          "the payout is canceled; 422 `SponsorRefused` with `rule: payout` " +
          "when it is not payable (it must be `ready` in a `ready` or `started` batch, or `failed`, to retry, also " +
          "once its batch is `completed`) or the call's `to` is not its contractor's address.\n\n" +
          "Then: 200 once it is on the ledger; 422 `TransferRejected` when the network rejects it or applies it as " +
          "FAILED (`resultCode`, such as `txBadSeq`); 504 when it is not final by its `maxTime` plus a margin (it " +
          "may still land: follow it with GET /transfers/{hash}); 502 when Stellar RPC cannot be reached (with " +
          "`hash`: the submission is recorded and is sent and followed in the background). The same transaction " +
          "posted again is never sent twice: it is answered with its submission's state; 409 when another " +
          "organization submitted it."
      )
  )
  .add(
    HttpApiEndpoint.post("prepare", "/transfers/prepare")
      .setPayload(PrepareTransferRequest)
      .addSuccess(PreparedTransfer)
      .addError(Forbidden)
      .addError(SimulationRefused)
      .addError(SponsorRefused)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .addError(Conflict)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Prepare a confidential transfer for signing")
      .annotate(
        OpenApi.Description,
        "Builds the inner transaction of one payment so that the employer's wallet only has to sign it: " +
          "`confidential_transfer(from = the signed-in wallet, to, data)` on the configured confidential token, with " +
          "the account's next sequence number, simulated through Stellar RPC (footprint, resource fee and the source's " +
          "authorization entry), an inner fee within the sponsor's cap and time bounds the sponsor accepts " +
          "(`validFor` seconds, 300 by default). Sign the answer's `xdr` with any Stellar SDK and post it to POST " +
          "/transfer; nothing is recorded or sent here. An account lands one transaction per ledger: prepare the next " +
          "one once the previous is on the ledger (the typed client's `runPayroll` with a signer does exactly that). " +
          "Same callers as POST /transfer: a wallet (SEP-10) session or an API key with `transfers:submit`.\n\n" +
          "- 501 for an email session, or when no confidential token is configured;\n" +
          "- 403 when the session belongs to no organization, its role lacks `transfers:submit` (owner, payer), or " +
          "the organization requires approvals and no `payoutId` is given;\n" +
          "- 404 when `payoutId` names no payout of the organization; 409 when its batch is paused, canceled or short " +
          "of approvals, or the payout is canceled;\n" +
          "- 422 `SimulationRefused` when the host refuses the call (`contractError` 3501 `AccountNotRegistered`: the " +
          "sender or the recipient has not registered with the token; 3507 `InvalidData`; 3506 `InvalidProof`; ...) or " +
          "the wallet's account does not exist; 422 `SponsorRefused` when the sponsor would not pay for it (`rule: fee`: " +
          "its resource fee is over `SPONSOR_MAX_INNER_FEE`);\n" +
          "- 502 when Stellar RPC cannot be reached."
      )
  )
  .add(
    HttpApiEndpoint.get("status")`/transfers/${hash}`
      .addSuccess(TransferStatus)
      .addError(NotFound)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "Look up a transfer")
      .annotate(
        OpenApi.Description,
        "A submitted transfer and where it stands, by its fee-bump or inner hash: `PENDING` until final, then " +
          "`SUCCESS`, `FAILED`, `REJECTED` or `EXPIRED`. For whoever submitted it (the faucet's caller can follow " +
          "their grant here) or an employer of its organization. 404 when no such transfer is visible to the caller " +
          "(unknown, another organization's, or pruned after `RETENTION`)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Transfers")
  .annotate(
    OpenApi.Description,
    "Sponsored confidential transfers: the employer's client signs, the service pays the network fee (a CAP-15 " +
      "fee-bump), submits and follows each transaction to the ledger. The service never sees an amount."
  )
{}
