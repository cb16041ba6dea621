import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { Api } from "../Api.ts"
import { contractorToJson } from "../Domain/Contractor.ts"
import { jsonAnswer, pageToJson } from "../Http/JsonAnswer.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { Contractors } from "./Contractors.ts"

/** The directory's pages, encoded by hand (`contractorToJson`): the busiest list of the API. */
const answerContractorPage = jsonAnswer(pageToJson(contractorToJson))

export const ContractorsHttpLive = HttpApiBuilder.group(Api, "contractors", (handlers) =>
  Effect.gen(function*() {
    const contractors = yield* Contractors
    const { asEmployer } = yield* Organizations
    return handlers
      .handle("create", ({ payload }) => asEmployer((org) => contractors.create(org, payload)))
      .handle("bulk", ({ payload }) => asEmployer((org) => contractors.bulk(org, payload.rows)))
      .handle("list", ({ urlParams }) =>
        asEmployer((org) => contractors.list(org, urlParams)).pipe(Effect.map(answerContractorPage)))
      .handle("get", ({ path }) => asEmployer((org) => contractors.get(org, path.id)))
      .handle("update", ({ path, payload }) => asEmployer((org) => contractors.update(org, path.id, payload)))
      .handle("check", ({ path }) => asEmployer((org) => contractors.check(org, path.id)))
      .handle("invite", ({ path }) =>
        asEmployer((org) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => contractors.invite(org, path.id, new Date(now)))
        ))
  }))
