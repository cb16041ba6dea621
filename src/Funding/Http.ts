import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Funding } from "./Funding.ts"

export const FundingHttpLive = HttpApiBuilder.group(Api, "funding", (handlers) =>
  Effect.gen(function*() {
    const funding = yield* Funding
    return handlers
      .handle("vault", () => funding.vault)
      .handle("faucet", ({ payload }) => Effect.flatMap(CurrentSession, (s) => funding.faucet(s, payload.address)))
  }))
