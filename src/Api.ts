import { HttpApi, OpenApi } from "@effect/platform"
import { AccountApi } from "./Auth/AccountApi.ts"
import { AuthApi } from "./Auth/Api.ts"
import { ContractorsApi } from "./Contractors/Api.ts"
import { InvalidRequest } from "./Domain/Errors.ts"
import { BatchesApi, BatchRunsApi, ContractorPortalApi } from "./Batches/Api.ts"
import { FundingApi } from "./Funding/Api.ts"
import { HealthApi } from "./Health/Api.ts"
import { TransfersApi } from "./Transfers/Api.ts"
import { AuditorApi, WithdrawalsApi } from "./Withdrawals/Api.ts"

/** The contract: imported by the server and by the typed client, never by an implementation detail. */
export class Api extends HttpApi.make("payroll")
  .add(HealthApi)
  .add(AuthApi)
  .add(AccountApi)
  .add(ContractorsApi)
  .add(TransfersApi)
  .add(BatchesApi)
  .add(BatchRunsApi)
  .add(ContractorPortalApi)
  .add(FundingApi)
  .add(WithdrawalsApi)
  .add(AuditorApi)
  .addError(InvalidRequest)
  .annotate(OpenApi.Title, "Confidential Contractor Payroll Service")
  .annotate(OpenApi.Version, "1.0.0")
{}
