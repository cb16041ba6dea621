import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Webhooks } from "./Webhooks.ts"

export const WebhooksHttpLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentSession, (s) => webhooks.create(s, payload)))
      .handle("list", () => Effect.flatMap(CurrentSession, webhooks.list))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentSession, (s) => webhooks.update(s, path.id, payload)))
      .handle("rotateSecret", ({ path, payload }) => Effect.flatMap(CurrentSession, (s) => webhooks.rotateSecret(s, path.id, payload)))
      .handle("remove", ({ path }) => Effect.flatMap(CurrentSession, (s) => webhooks.remove(s, path.id)))
      .handle("deliveries", ({ path, urlParams }) =>
        Effect.flatMap(CurrentSession, (s) => webhooks.deliveries(s, path.id, urlParams)))
      .handle("resend", ({ path }) => Effect.flatMap(CurrentSession, (s) => webhooks.resend(s, path.id, path.deliveryId)))
  }))
