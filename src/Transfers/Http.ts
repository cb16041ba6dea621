import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Transfers } from "./Transfers.ts"

export const TransfersHttpLive = HttpApiBuilder.group(Api, "transfers", (handlers) =>
  Effect.gen(function*() {
    const transfers = yield* Transfers
    return handlers
      .handle("transfer", ({ payload }) => Effect.flatMap(CurrentSession, (s) => transfers.submit(s, payload)))
      .handle("status", ({ path }) => Effect.flatMap(CurrentSession, (s) => transfers.status(s, path.hash)))
  }))
