import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { EscrowKeys } from "./EscrowKeys.ts"
import { escrowPolicy } from "./Policy.ts"

export const EscrowHttpLive = HttpApiBuilder.group(Api, "escrow", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* EscrowKeys
    const orgs = yield* Organizations
    return handlers
      .handle("list", () => Effect.flatMap(orgs.authorize(escrowPolicy.read), keys.list))
      .handle("create", ({ payload }) => Effect.flatMap(orgs.authorize(escrowPolicy.manage), (actor) => keys.create(actor, payload)))
      .handle("share", ({ path, payload }) =>
        Effect.flatMap(orgs.authorize(escrowPolicy.disclose), (actor) => keys.share(actor, path.id, payload)))
      .handle("rotate", ({ path, payload }) =>
        Effect.flatMap(orgs.authorize(escrowPolicy.manage), (actor) => keys.rotate(actor, path.id, payload)))
  }))
