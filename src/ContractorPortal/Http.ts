import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { ContractorRepo } from "../Contractors/ContractorRepo.ts"
import { Forbidden } from "../Domain/Errors.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { requireWallet } from "../Transfers/Submitter.ts"
import { Transfers } from "../Transfers/Transfers.ts"
import { ContractorPayouts } from "./ContractorPayouts.ts"

/**
 * Any session: a contractor's own payouts, found by the signed-in wallet or the account linked to them. A wallet
 * session of an organization's contractor: its registration with the token, sponsored (the sponsor pays only for
 * addresses an organization here pays, so a stranger cannot spend its fees).
 */
export const ContractorPortalHttpLive = HttpApiBuilder.group(Api, "contractorPortal", (handlers) =>
  Effect.gen(function*() {
    const payouts = yield* ContractorPayouts
    const contractors = yield* ContractorRepo
    const transfers = yield* Transfers
    return handlers
      .handle("payouts", ({ urlParams }) => Effect.flatMap(CurrentSession, (s) => payouts.of(s.sub, urlParams)))
      .handle("register", ({ payload }) =>
        Effect.gen(function*() {
          const session = yield* CurrentSession
          yield* requireWallet(session)
          const linked = yield* contractors.linkedTo(session.sub)
          if (linked.length === 0) {
            return yield* new Forbidden({ error: "only a contractor of an organization on this service has its registration sponsored" })
          }
          return yield* transfers.register(session.sub, payload.signedXDR)
        }))
  }))
