import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Archive } from "./Archive.ts"

export const ArchiveHttpLive = HttpApiBuilder.group(Api, "archive", (handlers) =>
  Effect.gen(function*() {
    const archive = yield* Archive
    return handlers
      .handle("status", () => archive.status)
      .handle("events", ({ path, urlParams }) => archive.events(path.contractId, urlParams))
      .handle("accountEvents", ({ path, urlParams }) => archive.accountEvents(path.contractId, path.account, urlParams))
      .handle("checkpoint", ({ path, urlParams }) => archive.checkpoint(path.contractId, path.account, urlParams))
  }))
