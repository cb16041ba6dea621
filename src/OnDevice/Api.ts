import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Auth/Security.ts"
import { NotImplemented } from "../Domain/Errors.ts"

export class WithdrawalsApi extends HttpApiGroup.make("withdrawals")
  .add(
    HttpApiEndpoint.post("withdraw", "/withdraw").addError(NotImplemented)
      .annotate(OpenApi.Summary, "Withdraw (not on this service)")
      .annotate(
        OpenApi.Description,
        "Always 501: a withdrawal needs the contractor's viewing key and a proof made on their own device, so it runs " +
          "in the payroll command-line client (`payroll contractors withdraw`) or the console's Payouts page, never here. " +
          "Needs a session."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Withdrawals")
  .annotate(OpenApi.Description, "Withdrawing from a confidential balance: done in the client tooling, not by this service.")
{}

export class AuditorApi extends HttpApiGroup.make("auditor")
  .add(
    HttpApiEndpoint.post("disclose", "/auditor/disclose").addError(NotImplemented)
      .annotate(OpenApi.Summary, "Auditor disclosure (not on this service)")
      .annotate(
        OpenApi.Description,
        "Always 501: disclosure to an auditor runs on the employer's device with the escrow key, in the payroll " +
          "command-line client (`payroll audit report`) or the console's audit page, never here. Needs a session."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Auditor")
  .annotate(OpenApi.Description, "Disclosing amounts to an auditor: done in the client tooling, not by this service.")
{}
