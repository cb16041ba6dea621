import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { TokenCalls } from "../Transfers/TokenCalls.ts"
import { ContractorPayouts } from "./ContractorPayouts.ts"

/**
 * Any session: a contractor's own payouts, found by the signed-in wallet or the account linked to them. A wallet
 * session of an organization's contractor: its registration with the token, sponsored (the sponsor pays only for
 * addresses an organization here pays, so a stranger cannot spend its fees): POST /token/calls' `register`, kept at
 * its first address.
 */
export const ContractorPortalHttpLive = HttpApiBuilder.group(Api, "contractorPortal", (handlers) =>
  Effect.gen(function*() {
    const payouts = yield* ContractorPayouts
    const calls = yield* TokenCalls
    return handlers
      .handle("payouts", ({ urlParams }) => Effect.flatMap(CurrentSession, (s) => payouts.of(s.sub, urlParams)))
      .handle("register", ({ payload }) => Effect.flatMap(CurrentSession, (s) => calls.register(s, payload.signedXDR)))
  }))
