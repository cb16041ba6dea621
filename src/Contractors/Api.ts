import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import {
  BulkImport,
  BulkImportResult,
  ContractorJson,
  ContractorPage,
  CreateContractor,
  Invitation,
  ListContractorsParams,
  UpdateContractor
} from "../Domain/Contractor.ts"
import { Conflict, Forbidden, NotFound, UpstreamUnavailable } from "../Domain/Errors.ts"
import { ContractorId } from "../Domain/Ids.ts"

const id = HttpApiSchema.param("id", ContractorId)

export class ContractorsApi extends HttpApiGroup.make("contractors")
  .add(
    HttpApiEndpoint.post("create", "/contractors")
      .setPayload(CreateContractor)
      .addSuccess(ContractorJson)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("bulk", "/contractors/bulk")
      .setPayload(BulkImport)
      .addSuccess(BulkImportResult)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.get("list", "/contractors")
      .setUrlParams(ListContractorsParams)
      .addSuccess(ContractorPage)
  )
  .add(
    HttpApiEndpoint.get("get")`/contractors/${id}`
      .addSuccess(ContractorJson)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("update")`/contractors/${id}`
      .setPayload(UpdateContractor)
      .addSuccess(ContractorJson)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("invite")`/contractors/${id}/invites`
      .addSuccess(Invitation)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Issues a single-use invite token (shown once) for an invited contractor")
  )
  .add(
    HttpApiEndpoint.post("check")`/contractors/${id}/check`
      .addSuccess(ContractorJson)
      .addError(NotFound)
      .addError(UpstreamUnavailable)
      .annotate(
        OpenApi.Description,
        "Re-reads the contractor's registration (confidential_balance of the confidential token); 502 when the chain could not say"
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Contractors")
{}
