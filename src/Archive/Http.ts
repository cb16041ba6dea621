import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { NotImplemented } from "../Domain/Errors.ts"

export const ArchiveHttpLive = HttpApiBuilder.group(Api, "archive", (handlers) =>
  handlers.handle("status", () => Effect.fail(new NotImplemented({ error: "not yet" }))))
