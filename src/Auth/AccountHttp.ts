import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Account } from "./Account.ts"

export const AccountHttpLive = HttpApiBuilder.group(Api, "account", (handlers) =>
  Effect.gen(function*() {
    const account = yield* Account
    return handlers
      .handle("me", ({ urlParams }) => Effect.flatMap(CurrentSession, (s) => account.me(s, urlParams.invite)))
      .handle("createOrg", ({ payload }) => Effect.flatMap(CurrentSession, (s) => account.createOrg(s, payload.name)))
      .handle("inviteEmployer", () => Effect.flatMap(CurrentSession, account.inviteEmployer))
      .handle("joinOrg", ({ path }) => Effect.flatMap(CurrentSession, (s) => account.joinOrg(s, path.token)))
      .handle("acceptInvite", ({ path, payload }) =>
        Effect.flatMap(CurrentSession, (s) => account.acceptInvite(s, path.token, payload.pvk)))
  }))
