import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { requireWallet, submitterOf } from "./Submitter.ts"
import { Transfers } from "./Transfers.ts"

export const TransfersHttpLive = HttpApiBuilder.group(Api, "transfers", (handlers) =>
  Effect.gen(function*() {
    const transfers = yield* Transfers
    const orgs = yield* Organizations
    return handlers
      .handle("transfer", ({ payload }) =>
        Effect.gen(function*() {
          const session = yield* CurrentSession
          yield* requireWallet(session)
          const orgId = yield* orgs.employerOrg(session)
          return yield* transfers.submit(submitterOf(session, orgId), payload)
        }))
      .handle("status", ({ path }) => Effect.flatMap(CurrentSession, (s) => transfers.status(s, path.hash)))
  }))
