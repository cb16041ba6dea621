import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Account } from "../Auth/Account.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Transfers } from "./Transfers.ts"

export const TransfersHttpLive = HttpApiBuilder.group(Api, "transfers", (handlers) =>
  Effect.gen(function*() {
    const transfers = yield* Transfers
    const { asEmployer } = yield* Account
    return handlers
      .handle("transfer", ({ payload }) => Effect.flatMap(CurrentSession, (s) => transfers.submit(s, payload)))
      .handle("status", ({ path }) =>
        asEmployer((org) => transfers.status(org, path.hash)))
  }))
