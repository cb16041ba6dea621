import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import {
  AddPayouts,
  Batch,
  BatchJob,
  BatchPage,
  BatchRun,
  ContractorPayout,
  CreateBatch,
  JobAccepted,
  ListBatchesParams,
  Payout
} from "../Domain/Batch.ts"
import { Conflict, Forbidden, NotFound, NotImplemented } from "../Domain/Errors.ts"
import { BatchId, PayoutId } from "../Domain/Ids.ts"

const id = HttpApiSchema.param("id", BatchId)
const payoutId = HttpApiSchema.param("payoutId", PayoutId)
const jobId = HttpApiSchema.param("jobId", Schema.String.pipe(Schema.maxLength(100)))

export class BatchesApi extends HttpApiGroup.make("batches")
  .add(HttpApiEndpoint.post("create", "/batches").setPayload(CreateBatch).addSuccess(Batch))
  .add(HttpApiEndpoint.get("list", "/batches").setUrlParams(ListBatchesParams).addSuccess(BatchPage))
  .add(HttpApiEndpoint.get("get")`/batches/${id}`.addSuccess(Batch).addError(NotFound))
  .add(HttpApiEndpoint.post("ready")`/batches/${id}/ready`.addSuccess(Batch).addError(NotFound).addError(Conflict))
  .add(
    HttpApiEndpoint.del("remove")`/batches/${id}`.addSuccess(HttpApiSchema.NoContent).addError(NotFound).addError(Conflict)
  )
  .add(HttpApiEndpoint.get("payouts")`/batches/${id}/payouts`.addSuccess(Schema.Array(Payout)).addError(NotFound))
  .add(
    HttpApiEndpoint.post("addPayouts")`/batches/${id}/payouts`
      .setPayload(AddPayouts)
      .addSuccess(Schema.Array(Payout))
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.del("removePayout")`/batches/${id}/payouts/${payoutId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Batches")
{}

export class BatchRunsApi extends HttpApiGroup.make("batchRuns")
  .add(
    HttpApiEndpoint.post("start", "/batch")
      .setPayload(BatchRun)
      .addSuccess(JobAccepted)
      .addError(NotImplemented)
      .annotate(OpenApi.Description, "Queues signed transfers; each goes through the rules of POST /transfer in the background")
  )
  .add(HttpApiEndpoint.get("poll")`/batch/${jobId}`.addSuccess(BatchJob).addError(NotFound))
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Batch runs")
{}

export class ContractorPortalApi extends HttpApiGroup.make("contractorPortal")
  .add(HttpApiEndpoint.get("payouts", "/contractor/payouts").addSuccess(Schema.Array(ContractorPayout)))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Contractor portal")
{}

