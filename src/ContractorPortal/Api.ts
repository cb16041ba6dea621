import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { ContractorPayoutPage, ListContractorPayoutsParams } from "../Domain/Batch.ts"

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
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Contractor portal")
  .annotate(OpenApi.Description, "What a contractor sees: the payouts made to them.")
{}
