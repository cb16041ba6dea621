import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import {
  BulkImport,
  BulkImportResult,
  ContractorJson,
  ContractorPage,
  CreateContractor,
  Invitation,
  ListContractorsParams,
  MAX_BULK_ROWS,
  UpdateContractor
} from "../Domain/Contractor.ts"
import { Conflict, Forbidden, NotFound, UpstreamUnavailable } from "../Domain/Errors.ts"
import { ContractorId } from "../Domain/Ids.ts"

const id = HttpApiSchema.param("id", Schema.propertySignature(ContractorId).annotations({ description: "The contractor's id" }))

const EMPLOYER = "For an employer: 403 when the session belongs to no organization."
const MISSING = "404 when the organization has no such contractor (another organization's answers alike)."
const UNIQUE = "409 when another contractor of the organization has the same email (any case) or address."

export class ContractorsApi extends HttpApiGroup.make("contractors")
  .add(
    HttpApiEndpoint.post("create", "/contractors").setPayload(CreateContractor).addSuccess(ContractorJson).addError(Conflict)
      .annotate(OpenApi.Summary, "Add a contractor")
      .annotate(
        OpenApi.Description,
        "Adds a contractor to the organization's directory. With an address already registered with the confidential " +
          "token (its `confidential_balance` is read through Stellar RPC) the contractor starts `ready`, with its viewing " +
          "key; otherwise `invited`, and an invite is issued that the contractor discovers in GET /me when signing in " +
          `with that address or email. ${EMPLOYER} ${UNIQUE}`
      )
  )
  .add(
    HttpApiEndpoint.post("bulk", "/contractors/bulk").setPayload(BulkImport).addSuccess(BulkImportResult).addError(Conflict)
      .annotate(OpenApi.Summary, "Import contractors")
      .annotate(
        OpenApi.Description,
        `Adds up to ${MAX_BULK_ROWS} contractors at once, as a client parsed them from CSV. Each row is checked on its ` +
          "own: a row with a bad field, or an email or address already in the directory (or twice in the import), is " +
          "listed in `errors` with its index and the reason, and the others are imported (200 either way). " +
          `${EMPLOYER} 409 when the directory changed during the import (retry it).`
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/contractors").setUrlParams(ListContractorsParams).addSuccess(ContractorPage)
      .annotate(OpenApi.Summary, "List contractors")
      .annotate(
        OpenApi.Description,
        "The organization's directory, newest first, a page at a time (`limit`, default 50; pass `nextCursor` as " +
          "`cursor` for the next page), optionally only one `status` or those whose name or email contains `q`. " +
          `${EMPLOYER} 400 for a \`limit\` outside 1 to 100 or a \`cursor\` this service did not hand out.`
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/contractors/${id}`.addSuccess(ContractorJson).addError(NotFound)
      .annotate(OpenApi.Summary, "Get a contractor")
      .annotate(OpenApi.Description, `One contractor of the directory. ${EMPLOYER} ${MISSING}`)
  )
  .add(
    HttpApiEndpoint.patch("update")`/contractors/${id}`.setPayload(UpdateContractor).addSuccess(ContractorJson)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a contractor")
      .annotate(
        OpenApi.Description,
        "Changes the fields given (null removes an email, address or rate). `status: inactive` deactivates the " +
          "contractor from any state; an inactive one may be moved back (to `ready` when its address is registered, " +
          "else `invited`); a new address is checked against the chain again. " +
          `${EMPLOYER} ${MISSING} 409 for any other status move, or when another contractor of the organization has the ` +
          "same email (any case) or address."
      )
  )
  .add(
    HttpApiEndpoint.post("invite")`/contractors/${id}/invites`.addSuccess(Invitation).addError(NotFound).addError(Conflict)
      .annotate(OpenApi.Summary, "Invite a contractor")
      .annotate(
        OpenApi.Description,
        "Issues a new single-use invite token for an `invited` contractor (shown this once, valid 7 days; earlier " +
          "open invites of the contractor are revoked): send it to them, and they accept it with POST " +
          `/invites/{token}/accept. ${EMPLOYER} ${MISSING} 409 when the contractor is not \`invited\`.`
      )
  )
  .add(
    HttpApiEndpoint.post("check")`/contractors/${id}/check`.addSuccess(ContractorJson).addError(NotFound)
      .addError(UpstreamUnavailable)
      .annotate(OpenApi.Summary, "Re-check a registration")
      .annotate(
        OpenApi.Description,
        "Reads the contractor's registration with the confidential token again (`confidential_balance` through " +
          "Stellar RPC): once registered, an `invited` or `onboarding` contractor becomes `ready` with its viewing key. " +
          `${EMPLOYER} ${MISSING} 502 when Stellar RPC could not say.`
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Contractors")
  .annotate(
    OpenApi.Description,
    "The organization's contractor directory: public data only (names, emails, addresses, viewing keys, rates), never " +
      "what anyone is paid. Only `ready` contractors can be added to a batch."
  )
{}
