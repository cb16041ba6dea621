import { HttpApiBuilder } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Api } from "../Api.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Forbidden } from "../Domain/Errors.ts"
import { AccountId } from "../Domain/Stellar.ts"
import { TransferPreparer } from "./Prepare.ts"
import { requireWallet, submitterOf } from "./Submitter.ts"
import { Transfers } from "./Transfers.ts"
import { transferPolicy } from "./Policy.ts"
import { TokenCalls } from "./TokenCalls.ts"

const isAccountId = Schema.is(AccountId)

export const TransfersHttpLive = HttpApiBuilder.group(Api, "transfers", (handlers) =>
  Effect.gen(function*() {
    const transfers = yield* Transfers
    const orgs = yield* Organizations
    const preparer = yield* TransferPreparer
    return handlers
      .handle("transfer", ({ payload }) =>
        Effect.gen(function*() {
          const session = yield* CurrentSession
          yield* requireWallet(session)
          const actor = yield* orgs.authorize(transferPolicy.pay)
          return yield* transfers.submit(submitterOf(session, actor), payload)
        }))
      .handle("prepare", ({ payload }) =>
        Effect.gen(function*() {
          const session = yield* CurrentSession
          yield* requireWallet(session)
          const actor = yield* orgs.authorize(transferPolicy.pay)
          if (!isAccountId(session.sub)) {
            return yield* new Forbidden({ error: "the signed-in wallet must be a plain account (G...) to source a transfer" })
          }
          return yield* preparer.prepare(session.sub, actor, payload)
        }))
      .handle("status", ({ path }) => Effect.flatMap(CurrentSession, (s) => transfers.status(s, path.hash)))
  }))

/** A wallet's own token calls: who may have which sponsored is TokenCalls' to decide (Policy.ts: tokenCallPolicy). */
export const TokenCallsHttpLive = HttpApiBuilder.group(Api, "tokenCalls", (handlers) =>
  Effect.map(TokenCalls, (calls) =>
    handlers.handle("submit", ({ payload }) => Effect.flatMap(CurrentSession, (session) => calls.submit(session, payload.signedXDR)))))
