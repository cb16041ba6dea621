import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { NotImplemented } from "../Domain/Errors.ts"

export const WebhooksHttpLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers.handle("list", () => Effect.fail(new NotImplemented({ error: "not yet" }))))
