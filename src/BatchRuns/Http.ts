import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { requireWallet } from "../Transfers/Submitter.ts"
import { BatchRuns } from "./BatchRuns.ts"
import { batchRunPolicy } from "./Policy.ts"

export const BatchRunsHttpLive = HttpApiBuilder.group(Api, "batchRuns", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* BatchRuns
    const orgs = yield* Organizations
    return handlers
      .handle("start", ({ payload }) =>
        Effect.gen(function*() {
          const session = yield* CurrentSession
          yield* requireWallet(session)
          return yield* runs.start(session, yield* orgs.authorize(batchRunPolicy.start), payload)
        }))
      .handle("poll", ({ path }) => Effect.flatMap(orgs.authorize(batchRunPolicy.poll), (actor) => runs.poll(actor.orgId, path.jobId)))
  }))
