import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { documented } from "../Domain/Documented.ts"

const ComponentState = Schema.Literal("ok", "unavailable")

const version = Schema.propertySignature(Schema.String).annotations({ description: "The API's version" })
const db = Schema.propertySignature(ComponentState).annotations({
  description: "Whether PostgreSQL answered `SELECT 1` within 2 seconds"
})
const rpc = Schema.propertySignature(ComponentState).annotations({
  description: "Whether Stellar RPC's `getHealth` reported `healthy` within 2 seconds"
})

const HealthFields = {
  status: Schema.propertySignature(Schema.Literal("ok")).annotations({ description: "Always `ok`: ready for traffic" }),
  version,
  db,
  rpc
}

export class Health extends Schema.Class<Health>("Health")(HealthFields, documented(HealthFields, {
  description: "The instance is ready: its database and Stellar RPC answer",
  examples: [{ status: "ok", version: "1.0.0", db: "ok", rpc: "ok" }]
})) {}

const LivenessFields = {
  status: Schema.propertySignature(Schema.Literal("ok")).annotations({ description: "Always `ok`: the process runs" }),
  version
}

export class Liveness extends Schema.Class<Liveness>("Liveness")(LivenessFields, documented(LivenessFields, {
  description: "The process runs",
  examples: [{ status: "ok", version: "1.0.0" }]
})) {}

/** Not ready: the database or Stellar RPC does not answer (`degraded`), or the instance is shutting down (`draining`). */
export class NotReady extends Schema.TaggedError<NotReady>()(
  "NotReady",
  {
    error: Schema.propertySignature(Schema.String).annotations({ description: "Which dependency failed, or `shutting down`" }),
    status: Schema.propertySignature(Schema.Literal("degraded", "draining")).annotations({
      description: "`degraded`: the database or Stellar RPC does not answer; `draining`: the instance is shutting down"
    }),
    version,
    db,
    rpc
  },
  HttpApiSchema.annotations({
    status: 503,
    description: "Not ready: send traffic elsewhere (a dependency does not answer, or the instance is shutting down)"
  })
) {}

const READINESS = "Checks the database (`SELECT 1`) and Stellar RPC (`getHealth`, which must report `healthy`), each " +
  "within 2 seconds. 200 when both answer; 503 `NotReady` naming the one that did not (`status: degraded`), or, from " +
  "the moment the instance starts shutting down, `status: draining`, so that a load balancer stops sending it traffic. " +
  "Public: no session."

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health").addSuccess(Health).addError(NotReady)
      .annotate(OpenApi.Summary, "Readiness (alias of /health/ready)")
      .annotate(OpenApi.Description, `The same as GET /health/ready. ${READINESS}`)
  )
  .add(
    HttpApiEndpoint.get("ready", "/health/ready").addSuccess(Health).addError(NotReady)
      .annotate(OpenApi.Summary, "Readiness")
      .annotate(OpenApi.Description, `Whether this instance can serve requests: use it for readiness probes. ${READINESS}`)
  )
  .add(
    HttpApiEndpoint.get("live", "/health/live").addSuccess(Liveness)
      .annotate(OpenApi.Summary, "Liveness")
      .annotate(
        OpenApi.Description,
        "200 as long as the process runs. It touches neither the database nor Stellar RPC: use it for liveness probes. " +
          "Public: no session."
      )
  )
  .annotate(OpenApi.Title, "Health")
  .annotate(OpenApi.Description, "Probes for load balancers and orchestrators: liveness and readiness")
{}
