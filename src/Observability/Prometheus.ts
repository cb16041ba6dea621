import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as Resource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { Effect } from "effect"
import { TracingConfig } from "../Config.ts"

export const SERVICE_VERSION = "1.0.0"

/**
 * Effect's metrics (every `Metric` of the process) read through OpenTelemetry's Prometheus exporter, without the
 * exporter's own HTTP server: `scrape` answers the text a Prometheus server expects.
 */
export class PrometheusMetrics extends Effect.Service<PrometheusMetrics>()("Observability/PrometheusMetrics", {
  scoped: Effect.gen(function*() {
    const { serviceName } = yield* TracingConfig
    const exporter = new PrometheusExporter({ preventServerStart: true })
    // No `otel_scope_name` label on every series: all of them come from the one Effect producer.
    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
    const producer = yield* OtelMetrics.makeProducer.pipe(
      Effect.provide(Resource.layer({ serviceName, serviceVersion: SERVICE_VERSION }))
    )
    yield* OtelMetrics.registerProducer(producer, () => exporter)

    const scrape = Effect.promise(() => exporter.collect()).pipe(
      Effect.tap(({ errors }) =>
        errors.length === 0 ? Effect.void : Effect.logWarning("metrics collection reported errors").pipe(
          Effect.annotateLogs({ errors: errors.map(String) })
        )
      ),
      Effect.map(({ resourceMetrics }) => serializer.serialize(resourceMetrics))
    )

    return { scrape } as const
  })
}) {}
