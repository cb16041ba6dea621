import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { NotImplemented } from "../Domain/Errors.ts"

export const WithdrawalsHttpLive = HttpApiBuilder.group(Api, "withdrawals", (handlers) =>
  handlers.handle("withdraw", () =>
    Effect.fail(
      new NotImplemented({
        error: "withdrawals are not wired into this service: they need your viewing key and a proof made on your device; " +
          "use the payroll command-line client (`payroll contractors withdraw`) or the console's Payouts page (/app/payouts)"
      })
    )))

export const AuditorHttpLive = HttpApiBuilder.group(Api, "auditor", (handlers) =>
  handlers.handle("disclose", () =>
    Effect.fail(
      new NotImplemented({
        error: "auditor disclosure is not wired into this service: it runs on the employer's device with the escrow key; " +
          "use the payroll command-line client (`payroll audit report`) or the console's audit page (/app/audit)"
      })
    )))
