import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Security.ts"
import { BatchJob, BatchRun, JobAccepted } from "../Domain/Batch.ts"
import { Conflict, Forbidden, NotFound, NotImplemented } from "../Domain/Errors.ts"
import { MAX_BODY_KIB } from "../Domain/RequestLimits.ts"

const jobId = HttpApiSchema.param(
  "jobId",
  Schema.propertySignature(Schema.String.pipe(Schema.maxLength(100))).annotations({
    description: "The job's id, as POST /batch answered it"
  })
)

/** Batch runs: many signed transfers in one request, worked in the background (not to be confused with /batches). */
export class BatchRunsApi extends HttpApiGroup.make("batchRuns")
  .add(
    HttpApiEndpoint.post("start", "/batch")
      .setPayload(BatchRun)
      .addSuccess(JobAccepted)
      .addError(NotImplemented)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Start a batch run")
      .annotate(
        OpenApi.Description,
        "Stores 1 to 100 signed transfers as one job and answers at once with its id; the service then runs them in " +
          "the background, each through exactly the checks and steps of POST /transfer (an item that breaks a rule " +
          "gets its own result and the others go on). Items of one source account go to the network one after " +
          `another in sequence-number order. The body is at most ${MAX_BODY_KIB} KiB, 6 real-size transfers: larger payrolls ` +
          "are split into several jobs (the typed client's `runPayroll` does that). For an employer signed in with " +
          "a wallet (SEP-10): 501 for an email session; 403 when the session belongs to no organization; 413 when " +
          `the body is over ${MAX_BODY_KIB} KiB.`
      )
  )
  .add(
    HttpApiEndpoint.get("poll")`/batch/${jobId}`.addSuccess(BatchJob).addError(NotFound)
      .annotate(OpenApi.Summary, "Follow a batch run")
      .annotate(
        OpenApi.Description,
        "The job and the outcome of each item so far; poll until every item has a result. For an employer of the " +
          "job's organization: 403 when the session belongs to no organization; 404 (`unknown job`) when the " +
          "organization has no such job, or it was pruned after `RETENTION`."
      )
  )
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Batch runs")
  .annotate(
    OpenApi.Description,
    "Many signed transfers in one request, run durably in the background: a job survives restarts, no transaction is " +
      "sent twice, and each item reports its own outcome."
  )
{}
