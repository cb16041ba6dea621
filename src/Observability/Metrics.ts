import { Clock, Effect, Exit, Metric, MetricBoundaries, MetricKey, type MetricKeyType, MetricLabel } from "effect"

/**
 * Every metric the service exports (`GET /metrics`, Prometheus text), defined once so each feature only records.
 * Names follow Prometheus conventions: snake_case, a unit suffix, `_total` for counters.
 */

/** Seconds, from 5 ms to ~20 s. */
const latencyBoundaries = MetricBoundaries.exponential({ start: 0.005, factor: 2, count: 13 })

/** HTTP requests, tagged `route` (the matched route template, never a raw path with tokens) and `status`. */
const httpRequestsKey = MetricKey.counter("http_requests_total", { description: "HTTP requests answered", incremental: true })
const httpDurationKey = MetricKey.histogram("http_request_duration_seconds", latencyBoundaries, "HTTP request latency")
export const httpRequests = Metric.fromMetricKey(httpRequestsKey)

/**
 * A metric whose tags are part of its key. `Metric.tagged` adds its tags on every update, in a new array, so each
 * update looks the tagged key up in the registry again (hashing it); this key is looked up once, on its first update.
 */
const taggedOnce = <Type extends MetricKeyType.MetricKeyType<any, any>>(
  key: MetricKey.MetricKey<Type>,
  tags: Readonly<Record<string, string>>
) => Metric.fromMetricKey(MetricKey.taggedWithLabels(key, Object.entries(tags).map(([name, value]) => MetricLabel.make(name, value))))

/** The two metrics of an HTTP route and status, to be made once each (AccessLog keeps them). */
export const httpMetricsOf = (route: string, status: string) => ({
  requests: taggedOnce(httpRequestsKey, { route, status }),
  duration: taggedOnce(httpDurationKey, { route, status })
})

/** Final outcomes of sponsored transfers, tagged `outcome` (SUCCESS, FAILED, REJECTED, EXPIRED). */
export const transferOutcomes = Metric.counter("transfers_total", { description: "transfers by final outcome", incremental: true })

/** Sponsor refusals, tagged `rule` (operation, function, contract, arguments, auth, fee, timebounds, quota, payout). */
export const sponsorRefusals = Metric.counter("sponsor_refusals_total", { description: "sponsor policy refusals by rule", incremental: true })

/** Stellar RPC calls, tagged `method` and `result` (ok, error). */
export const rpcCalls = Metric.counter("stellar_rpc_calls_total", { description: "Stellar RPC calls", incremental: true })
export const rpcDuration = Metric.histogram("stellar_rpc_call_duration_seconds", latencyBoundaries, "Stellar RPC call latency")

/** Batch-run jobs waiting to be worked (queued or with a lapsed lease), sampled by the worker. */
export const batchQueueDepth = Metric.gauge("batch_jobs_queued", { description: "batch-run jobs not yet done" })

/** Reconciler rounds, tagged `result` (ok, failed). */
export const reconcilerRounds = Metric.counter("reconciler_rounds_total", { description: "reconciler rounds", incremental: true })

/** Counts one Stellar RPC call by method and result and records its latency; an interrupted call is not counted. */
export const trackRpcCall = (method: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.currentTimeNanos, (start) =>
    Effect.onExit(self, (exit) =>
      Exit.isInterrupted(exit) ? Effect.void : Effect.flatMap(Clock.currentTimeNanos, (end) =>
        Effect.all([
          Metric.increment(Metric.tagged(Metric.tagged(rpcCalls, "method", method), "result", Exit.isSuccess(exit) ? "ok" : "error")),
          Metric.update(Metric.tagged(rpcDuration, "method", method), Number(end - start) / 1e9)
        ], { discard: true }))))

/** A transfer reached a final state: SUCCESS, FAILED, REJECTED or EXPIRED. */
export const countTransferOutcome = (outcome: string) => Metric.increment(Metric.tagged(transferOutcomes, "outcome", outcome))

/** The sponsor refused to pay, by the rule that refused. */
export const countSponsorRefusal = (refusal: { readonly rule: string }) =>
  Metric.increment(Metric.tagged(sponsorRefusals, "rule", refusal.rule))
