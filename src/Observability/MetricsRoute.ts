import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { MetricsConfig } from "../Config.ts"
import { PrometheusMetrics } from "./Prometheus.ts"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares digests, so neither the token's content nor its length shows in the timing. */
const bearsToken = (authorization: string | undefined, token: string) => {
  const presented = /^bearer\s+(\S+)\s*$/i.exec(authorization?.trim() ?? "")?.[1] ?? ""
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0
}

/**
 * `GET /metrics`: Prometheus text (exposition format 0.0.4). Public unless METRICS_TOKEN is set; then a scrape must
 * send `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise). Never needs a session.
 */
export const MetricsRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const metrics = yield* PrometheusMetrics
    const { token } = yield* MetricsConfig
    yield* router.get(
      "/metrics",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (Option.isSome(token) && !bearsToken(request.headers["authorization"], Redacted.value(token.value))) {
          return HttpServerResponse.unsafeJson(
            { error: "scraping metrics needs the metrics bearer token" },
            { status: 401, headers: { "www-authenticate": "Bearer realm=\"metrics\"" } }
          )
        }
        const text = yield* metrics.scrape
        return HttpServerResponse.text(text, {
          contentType: "text/plain; version=0.0.4; charset=utf-8",
          headers: { "cache-control": "no-store" }
        })
      })
    )
  })
).pipe(Layer.provide(PrometheusMetrics.Default))
