import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

const ComponentState = Schema.Literal("ok", "unavailable")

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok", "degraded"),
  version: Schema.String,
  db: ComponentState,
  rpc: ComponentState
}) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { error: Schema.String, version: Schema.String, db: ComponentState, rpc: ComponentState },
  HttpApiSchema.annotations({ status: 503 })
) {}

export class HealthApi extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("health", "/health").addSuccess(Health).addError(ServiceUnavailable))
  .annotate(OpenApi.Title, "Health")
{}
