import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { ContractorPayouts } from "./ContractorPayouts.ts"

/** Any session: a contractor's own payouts, found by the signed-in wallet or the account linked to them. */
export const ContractorPortalHttpLive = HttpApiBuilder.group(Api, "contractorPortal", (handlers) =>
  Effect.gen(function*() {
    const payouts = yield* ContractorPayouts
    return handlers.handle("payouts", ({ urlParams }) => Effect.flatMap(CurrentSession, (s) => payouts.of(s.sub, urlParams)))
  }))
