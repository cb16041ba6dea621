import { HttpApi, OpenApi } from "@effect/platform"
import { OrgsApi } from "./Orgs/Api.ts"
import { AuthApi } from "./Auth/Api.ts"
import { ContractorsApi } from "./Contractors/Api.ts"
import {
  HeadersTooLarge,
  InternalError,
  InvalidRequest,
  PayloadTooLarge,
  RequestTimeout,
  ServiceUnavailable,
  UnsupportedMediaType
} from "./Domain/Errors.ts"
import { BatchesApi, BatchRunsApi, ContractorPortalApi } from "./Batches/Api.ts"
import { FundingApi } from "./Funding/Api.ts"
import { HealthApi } from "./Health/Api.ts"
import { TransfersApi } from "./Transfers/Api.ts"
import { AuditorApi, WithdrawalsApi } from "./Withdrawals/Api.ts"

/** The contract: imported by the server and by the typed client, never by an implementation detail. */
export class Api extends HttpApi.make("payroll")
  .add(HealthApi)
  .add(AuthApi)
  .add(OrgsApi)
  .add(ContractorsApi)
  .add(TransfersApi)
  .add(BatchesApi)
  .add(BatchRunsApi)
  .add(ContractorPortalApi)
  .add(FundingApi)
  .add(WithdrawalsApi)
  .add(AuditorApi)
  // Answers any operation can give, whoever makes them: Node's HTTP parser (400, 408, 431), the body checks before
  // the router (400, 408, 413, 415), the database going away (503) and an unexpected failure (500).
  .addError(InvalidRequest)
  .addError(RequestTimeout)
  .addError(HeadersTooLarge)
  .addError(PayloadTooLarge)
  .addError(UnsupportedMediaType)
  .addError(ServiceUnavailable)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Confidential Contractor Payroll Service")
  .annotate(OpenApi.Version, "1.0.0")
{}
