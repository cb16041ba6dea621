import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Organizations } from "./Organizations.ts"

export const OrgsHttpLive = HttpApiBuilder.group(Api, "account", (handlers) =>
  Effect.gen(function*() {
    const orgs = yield* Organizations
    return handlers
      .handle("me", ({ urlParams }) => Effect.flatMap(CurrentSession, (s) => orgs.me(s, urlParams.invite)))
      .handle("createOrg", ({ payload }) => Effect.flatMap(CurrentSession, (s) => orgs.createOrg(s, payload.name)))
      .handle("inviteEmployer", () => Effect.flatMap(CurrentSession, orgs.inviteEmployer))
      .handle("joinOrg", ({ path }) => Effect.flatMap(CurrentSession, (s) => orgs.joinOrg(s, path.token)))
      .handle("acceptInvite", ({ path, payload }) =>
        Effect.flatMap(CurrentSession, (s) => orgs.acceptInvite(s, path.token, payload.pvk)))
  }))
