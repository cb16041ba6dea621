import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { NotImplemented } from "../Domain/Errors.ts"

export class WithdrawalsApi extends HttpApiGroup.make("withdrawals")
  .add(HttpApiEndpoint.post("withdraw", "/withdraw").addError(NotImplemented))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Withdrawals")
{}

export class AuditorApi extends HttpApiGroup.make("auditor")
  .add(HttpApiEndpoint.post("disclose", "/auditor/disclose").addError(NotImplemented))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Auditor")
{}
