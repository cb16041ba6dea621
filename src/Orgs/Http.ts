import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Organizations } from "./Organizations.ts"
import { orgPolicy } from "./Policy.ts"

export const OrgsHttpLive = HttpApiBuilder.group(Api, "account", (handlers) =>
  Effect.gen(function*() {
    const orgs = yield* Organizations
    return handlers
      .handle("me", ({ urlParams }) => Effect.flatMap(CurrentSession, (s) => orgs.me(s, urlParams.invite)))
      .handle("createOrg", ({ payload }) => Effect.flatMap(CurrentSession, (s) => orgs.createOrg(s, payload.name)))
      .handle("inviteEmployer", ({ payload }) =>
        Effect.flatMap(orgs.authorize(orgPolicy.manage), (actor) => orgs.inviteMember(actor, payload.role ?? "viewer")))
      .handle("publishSealingKey", ({ payload }) =>
        Effect.flatMap(orgs.authorizeAny(orgPolicy.readAmounts, orgPolicy.disclose), (actor) => orgs.publishSealingKey(actor, payload.sealingKey)))
      .handle("joinOrg", ({ path }) => Effect.flatMap(CurrentSession, (s) => orgs.joinOrg(s, path.token)))
      .handle("acceptInvite", ({ path, payload }) =>
        Effect.flatMap(CurrentSession, (s) => orgs.acceptInvite(s, path.token, payload.pvk)))
  }))

export const MembersHttpLive = HttpApiBuilder.group(Api, "members", (handlers) =>
  Effect.gen(function*() {
    const orgs = yield* Organizations
    const manage = orgs.authorize(orgPolicy.manage)
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(orgs.authorizeAny(orgPolicy.manage, orgPolicy.readAmounts, orgPolicy.disclose), (actor) => orgs.members(actor, urlParams)))
      .handle("update", ({ path, payload }) => Effect.flatMap(manage, (actor) => orgs.updateMember(actor, path.id, payload.role)))
      .handle("remove", ({ path }) => Effect.flatMap(manage, (actor) => orgs.removeMember(actor, path.id)))
      .handle("settings", () => Effect.flatMap(orgs.authorize(orgPolicy.readSettings), (actor) => orgs.settings(actor.orgId)))
      .handle("updateSettings", ({ payload }) => Effect.flatMap(manage, (actor) => orgs.updateSettings(actor, payload)))
  }))
