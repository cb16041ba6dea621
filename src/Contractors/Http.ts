import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { Api } from "../Api.ts"
import { contractorToJson } from "../Domain/Contractor.ts"
import { jsonAnswer, pageToJson } from "../Http/JsonAnswer.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { Contractors } from "./Contractors.ts"
import { directoryPolicy } from "./Policy.ts"

/** The directory's pages, encoded by hand (`contractorToJson`): the busiest list of the API. */
const answerContractorPage = jsonAnswer(pageToJson(contractorToJson))

export const ContractorsHttpLive = HttpApiBuilder.group(Api, "contractors", (handlers) =>
  Effect.gen(function*() {
    const contractors = yield* Contractors
    const orgs = yield* Organizations
    const read = orgs.authorize(directoryPolicy.read)
    const write = orgs.authorize(directoryPolicy.write)
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(write, (actor) => contractors.create(actor, payload)))
      .handle("bulk", ({ payload }) => Effect.flatMap(write, (actor) => contractors.bulk(actor, payload.rows)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(read, (actor) => contractors.list(actor.orgId, urlParams)).pipe(Effect.map(answerContractorPage)))
      .handle("get", ({ path }) => Effect.flatMap(read, (actor) => contractors.get(actor.orgId, path.id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(write, (actor) => contractors.update(actor, path.id, payload)))
      .handle("check", ({ path }) => Effect.flatMap(write, (actor) => contractors.check(actor, path.id)))
      .handle("invite", ({ path }) =>
        Effect.flatMap(write, (actor) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => contractors.invite(actor.orgId, path.id, new Date(now)))))
  }))
