import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotImplemented } from "../Domain/Errors.ts"

// (Skeleton: the archive's routes, INDEXER.md §6, are filled in by issue 17's work.)
export class ArchiveStatus extends Schema.Class<ArchiveStatus>("ArchiveStatus")({
  latestLedger: Schema.Int,
  ingestedThrough: Schema.Int,
  lagSeconds: Schema.Number
}) {}

export class ArchiveApi extends HttpApiGroup.make("archive")
  .add(
    HttpApiEndpoint.get("status", "/archive/status").addSuccess(ArchiveStatus).addError(NotImplemented)
      .annotate(OpenApi.Summary, "Archive ingestion status")
  )
  .annotate(OpenApi.Title, "Archive")
  .annotate(OpenApi.Description, "The confidential token's event archive.")
{}
