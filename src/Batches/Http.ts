import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { batchToJson, payoutToJson } from "../Domain/Batch.ts"
import { jsonAnswer, pageToJson } from "../Http/JsonAnswer.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { CurrentSession } from "../Domain/Session.ts"
import { BatchRuns } from "./BatchRuns.ts"
import { Batches } from "./Batches.ts"
import { ContractorPayouts } from "./ContractorPayouts.ts"

/** The pages of batches and of a batch's payouts, encoded by hand (`batchToJson`, `payoutToJson`). */
const answerBatchPage = jsonAnswer(pageToJson(batchToJson))
const answerPayoutPage = jsonAnswer(pageToJson(payoutToJson))

export const BatchesHttpLive = HttpApiBuilder.group(Api, "batches", (handlers) =>
  Effect.gen(function*() {
    const batches = yield* Batches
    const { asEmployer } = yield* Organizations
    return handlers
      .handle("create", ({ payload }) => asEmployer((org) => batches.create(org, payload.name)))
      .handle("list", ({ urlParams }) => asEmployer((org) => batches.list(org, urlParams)).pipe(Effect.map(answerBatchPage)))
      .handle("get", ({ path }) => asEmployer((org) => batches.get(org, path.id)))
      .handle("ready", ({ path }) => asEmployer((org) => batches.ready(org, path.id)))
      .handle("remove", ({ path }) => asEmployer((org) => batches.remove(org, path.id)))
      .handle("payouts", ({ path, urlParams }) =>
        asEmployer((org) => batches.payouts(org, path.id, urlParams)).pipe(Effect.map(answerPayoutPage)))
      .handle("addPayouts", ({ path, payload }) => asEmployer((org) => batches.addPayouts(org, path.id, payload.contractorIds)))
      .handle("removePayout", ({ path }) => asEmployer((org) => batches.removePayout(org, path.id, path.payoutId)))
  }))

export const BatchRunsHttpLive = HttpApiBuilder.group(Api, "batchRuns", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* BatchRuns
    const { asEmployer } = yield* Organizations
    return handlers
      .handle("start", ({ payload }) => Effect.flatMap(CurrentSession, (s) => runs.start(s, payload)))
      .handle("poll", ({ path }) => asEmployer((org) => runs.poll(org, path.jobId)))
  }))

export const ContractorPortalHttpLive = HttpApiBuilder.group(Api, "contractorPortal", (handlers) =>
  Effect.gen(function*() {
    const payouts = yield* ContractorPayouts
    return handlers.handle("payouts", () => Effect.flatMap(CurrentSession, (s) => payouts.of(s.sub)))
  }))
