import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

const ComponentState = Schema.Literal("ok", "unavailable")

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok"),
  version: Schema.String,
  db: ComponentState,
  rpc: ComponentState
}) {}

export class Liveness extends Schema.Class<Liveness>("Liveness")({
  status: Schema.Literal("ok"),
  version: Schema.String
}) {}

/** Not ready: the database or Stellar RPC does not answer (`degraded`), or the instance is shutting down (`draining`). */
export class NotReady extends Schema.TaggedError<NotReady>()(
  "NotReady",
  {
    error: Schema.String,
    status: Schema.Literal("degraded", "draining"),
    version: Schema.String,
    db: ComponentState,
    rpc: ComponentState
  },
  HttpApiSchema.annotations({ status: 503 })
) {}

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health").addSuccess(Health).addError(NotReady)
      .annotate(OpenApi.Description, "Readiness, as /health/ready")
  )
  .add(
    HttpApiEndpoint.get("ready", "/health/ready").addSuccess(Health).addError(NotReady)
      .annotate(OpenApi.Description, "Readiness: 200 when the database and Stellar RPC answer, 503 otherwise or while shutting down")
  )
  .add(
    HttpApiEndpoint.get("live", "/health/live").addSuccess(Liveness)
      .annotate(OpenApi.Description, "Liveness: the process answers")
  )
  .annotate(OpenApi.Title, "Health")
{}
