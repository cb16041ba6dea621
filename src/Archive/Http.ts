import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { jsonAnswer } from "../Http/JsonAnswer.ts"
import { Archive } from "./Archive.ts"
import { archiveEventPageToJson } from "./Event.ts"

/** The histories' pages, encoded by hand (`archiveEventPageToJson`): public routes, read on every request. */
const answerPage = jsonAnswer(archiveEventPageToJson)

export const ArchiveHttpLive = HttpApiBuilder.group(Api, "archive", (handlers) =>
  Effect.gen(function*() {
    const archive = yield* Archive
    return handlers
      .handle("status", () => archive.status)
      .handle("events", ({ path, urlParams }) => archive.events(path.contractId, urlParams).pipe(Effect.map(answerPage)))
      .handle("accountEvents", ({ path, urlParams }) =>
        archive.accountEvents(path.contractId, path.account, urlParams).pipe(Effect.map(answerPage)))
      .handle("checkpoint", ({ path, urlParams }) => archive.checkpoint(path.contractId, path.account, urlParams))
  }))
