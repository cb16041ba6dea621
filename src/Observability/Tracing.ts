import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { FetchHttpClient, HttpMiddleware } from "@effect/platform"
import { Effect, Layer, Option, Redacted, Tracer } from "effect"
import { TracingConfig } from "../Config.ts"
import { SERVICE_VERSION } from "./Prometheus.ts"
import { makeScrubber, redactUrl, scrubField } from "./Redaction.ts"

/** Scrapes and probes would be most of the traces and say nothing. */
const UNTRACED = /^\/(metrics|health(\/live|\/ready)?)(\?|$)/

const URL_ATTRIBUTES = new Set(["url.full", "url.path", "http.url", "http.target"])

/**
 * The HTTP server span records the URL and its query, which may carry an invite token: URLs leave without their
 * query and with tokens replaced, and secret-named attributes are masked.
 */
const redacting = (tracer: Tracer.Tracer): Tracer.Tracer => {
  const scrub = makeScrubber([])
  return Tracer.make({
    span(...args) {
      const span = tracer.span(...args)
      const set = span.attribute.bind(span)
      span.attribute = (key, value) => {
        if (key === "url.query") return
        set(key, URL_ATTRIBUTES.has(key) && typeof value === "string" ? redactUrl(value, scrub) : scrubField(key, value, scrub))
      }
      return span
    },
    context: (f, fiber) => tracer.context(f, fiber)
  })
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs, comma-separated, values URL-encoded. */
const parseHeaders = (raw: string): Record<string, string> =>
  Object.fromEntries(
    raw.split(",").map((pair) => pair.split("=")).filter((parts) => parts.length >= 2 && parts[0]!.trim() !== "")
      .map(([key, ...value]) => [key!.trim(), decodeURIComponent(value.join("=").trim())])
  )

/**
 * Spans (`Effect.fn`, `Effect.withSpan`, the HTTP server's and SQL's) exported over OTLP/HTTP (JSON) when
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; otherwise tracing is off (no span is made,
 * and log lines carry no trace ids).
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* TracingConfig
    // Nothing to export to: spans would be made on every request and thrown away, so none are made (Spans.ts makes
    // the service's own spans look at this; the HTTP server's span, with the URL it parses and the headers it
    // redacts, is turned off here).
    if (Option.isNone(config.url)) {
      return Layer.merge(
        Layer.setTracerEnabled(false),
        Layer.scopedDiscard(Effect.locallyScopedWith(HttpMiddleware.currentTracerDisabledWhen, () => () => true))
      )
    }
    const tracer = OtlpTracer.make({
      url: config.url.value,
      resource: { serviceName: config.serviceName, serviceVersion: SERVICE_VERSION },
      headers: Option.match(config.headers, { onNone: () => ({}), onSome: (raw) => parseHeaders(Redacted.value(raw)) }),
      exportInterval: config.exportInterval
    })
    const untraced = Layer.scopedDiscard(
      Effect.locallyScopedWith(HttpMiddleware.currentTracerDisabledWhen, (disabled) => (request) =>
        UNTRACED.test(request.url) || disabled(request))
    )
    return Layer.unwrapScoped(Effect.map(tracer, (t) => Layer.setTracer(redacting(t)))).pipe(
      Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]),
      Layer.merge(untraced)
    )
  })
)
