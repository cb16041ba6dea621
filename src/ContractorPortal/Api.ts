import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { ContractorPayoutPage, ListContractorPayoutsParams } from "../Domain/Batch.ts"
import { Conflict, Forbidden, NotImplemented, UpstreamUnavailable } from "../Domain/Errors.ts"
import { RegistrationRequest, SponsorRefused, TransferRejected, TransferResult, TransferTimeout } from "../Domain/Transfer.ts"

/** What a contractor sees of the payroll: the payouts made to them, across organizations. */
export class ContractorPortalApi extends HttpApiGroup.make("contractorPortal")
  .add(
    HttpApiEndpoint.get("payouts", "/contractor/payouts")
      .setUrlParams(ListContractorPayoutsParams)
      .addSuccess(ContractorPayoutPage)
      .annotate(OpenApi.Summary, "My payouts (contractor)")
      .annotate(
        OpenApi.Description,
        "The signed-in contractor's own payouts across every organization that pays them (by the wallet address or " +
          "the account linked when they accepted an invite), newest first, draft batches left out, a page at a time " +
          "(`limit`, default 50; pass `nextCursor` as `cursor` for the next page). The amounts are in the transfers, " +
          "encrypted: decrypt them with your own keys. Needs a session (any sign-in method); an empty page for " +
          "someone who is no contractor. 400 for a `limit` outside 1 to 100 or a `cursor` this service did not hand out."
      )
  )
  .add(
    HttpApiEndpoint.post("register", "/contractor/register")
      .setPayload(RegistrationRequest)
      .addSuccess(TransferResult)
      .addError(Forbidden)
      .addError(SponsorRefused)
      .addError(TransferRejected)
      .addError(NotImplemented)
      .addError(UpstreamUnavailable)
      .addError(TransferTimeout)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Register my wallet with the confidential token (sponsored)")
      .annotate(
        OpenApi.Description,
        "Sponsors a contractor's own `register(account, auditor_id, data)`: the contractor's client derives their " +
          "keys, proves the registration and signs it with their wallet; the service pays its fee (a fee-bump), so a " +
          "contractor needs no XLM. For a wallet (SEP-10) session of an address that is a contractor of an " +
          "organization here (added with that address, or linked by accepting an invite). Refusals, before anything " +
          "is sent: 501 for an email session; 403 when the address is no organization's contractor, or the " +
          "transaction's source is not the signed-in wallet; 400 for an envelope that is not one signed v1 " +
          "transaction; 422 `SponsorRefused` under the same rules as POST /transfer (`function`: only `register`; " +
          "`arguments`: `account` must be the source; `contract`, `auth`, `fee`, `timebounds`, `quota`). Then as " +
          "POST /transfer: 200 once on the ledger (the archive then moves the contractor to `ready`), 422 " +
          "`TransferRejected` when the network refuses it (an account that registered before fails with the " +
          "token's `AccountAlreadyRegistered`), 504 when not final in time, 502 when Stellar RPC cannot be reached. " +
          "POST /token/calls takes the same `register`, and a contractor's `merge` and `withdraw` too."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Contractor portal")
  .annotate(OpenApi.Description, "What a contractor sees: the payouts made to them, and their sponsored registration with the token.")
{}
