import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { batchToJson, payoutToJson } from "../Domain/Batch.ts"
import { jsonAnswer, pageToJson } from "../Http/JsonAnswer.ts"
import { Organizations } from "../Orgs/Organizations.ts"
import { BatchControls } from "./BatchControls.ts"
import { Batches } from "./Batches.ts"
import { batchPolicy } from "./Policy.ts"
import { SealedReceipts } from "./SealedReceipts.ts"
import { Sealing } from "./Sealing.ts"

/** The pages of batches and of a batch's payouts, encoded by hand (`batchToJson`, `payoutToJson`). */
const answerBatchPage = jsonAnswer(pageToJson(batchToJson))
const answerPayoutPage = jsonAnswer(pageToJson(payoutToJson))

export const BatchesHttpLive = HttpApiBuilder.group(Api, "batches", (handlers) =>
  Effect.gen(function*() {
    const batches = yield* Batches
    const controls = yield* BatchControls
    const orgs = yield* Organizations
    const read = orgs.authorize(batchPolicy.read)
    const write = orgs.authorize(batchPolicy.write)
    const approve = orgs.authorize(batchPolicy.approve)
    const control = orgs.authorize(batchPolicy.control)
    const sealing = yield* Sealing
    const readAmounts = orgs.authorize(batchPolicy.readAmounts)
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(write, (actor) => batches.create(actor, payload.name)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(read, (actor) => batches.list(actor.orgId, urlParams)).pipe(Effect.map(answerBatchPage)))
      .handle("get", ({ path }) => Effect.flatMap(read, (actor) => batches.get(actor.orgId, path.id)))
      .handle("ready", ({ path }) => Effect.flatMap(write, (actor) => batches.ready(actor, path.id)))
      .handle("remove", ({ path }) => Effect.flatMap(write, (actor) => batches.remove(actor, path.id)))
      .handle("payouts", ({ path, urlParams }) =>
        Effect.flatMap(read, (actor) => batches.payouts(actor.orgId, path.id, urlParams)).pipe(Effect.map(answerPayoutPage)))
      .handle("addPayouts", ({ path, payload }) =>
        Effect.flatMap(write, (actor) => batches.addPayouts(actor, path.id, payload.contractorIds)))
      .handle("removePayout", ({ path }) => Effect.flatMap(write, (actor) => batches.removePayout(actor, path.id, path.payoutId)))
      .handle("approve", ({ path, payload }) =>
        Effect.flatMap(approve, (actor) => controls.approve(actor, path.id, payload.sealedAmountsDigest)))
      .handle("reject", ({ path, payload }) => Effect.flatMap(approve, (actor) => controls.reject(actor, path.id, payload.reason)))
      .handle("pause", ({ path }) => Effect.flatMap(control, (actor) => controls.pause(actor, path.id)))
      .handle("resume", ({ path }) => Effect.flatMap(control, (actor) => controls.resume(actor, path.id)))
      .handle("cancel", ({ path }) => Effect.flatMap(write, (actor) => controls.cancel(actor, path.id)))
      .handle("cancelPayout", ({ path }) =>
        Effect.flatMap(write, (actor) => controls.cancelPayout(actor, path.id, path.payoutId)))
      .handle("sealAmounts", ({ path, payload }) => Effect.flatMap(readAmounts, (actor) => sealing.put(actor, path.id, payload)))
      .handle("sealedAmounts", ({ path }) => Effect.flatMap(readAmounts, (actor) => sealing.get(actor, path.id)))
  }))

/** A payout's sealed receipt and a batch's receipts: for the members who may read amounts (a new receipt: the payer). */
export const SealedReceiptsHttpLive = HttpApiBuilder.group(Api, "sealedReceipts", (handlers) =>
  Effect.gen(function*() {
    const receipts = yield* SealedReceipts
    const readAmounts = (yield* Organizations).authorize(batchPolicy.readAmounts)
    return handlers
      .handle("sealReceipt", ({ path, payload }) =>
        Effect.flatMap(readAmounts, (actor) => receipts.put(actor, path.id, path.payoutId, payload)))
      .handle("sealedReceipt", ({ path }) => Effect.flatMap(readAmounts, (actor) => receipts.get(actor, path.id, path.payoutId)))
      .handle("sealedReceipts", ({ path, urlParams }) =>
        Effect.flatMap(readAmounts, (actor) => receipts.list(actor, path.id, urlParams)))
  }))
