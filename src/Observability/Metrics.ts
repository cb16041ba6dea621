import { Clock, Effect, Exit, Metric, MetricBoundaries, MetricKey, type MetricKeyType, MetricLabel } from "effect"

/**
 * Every metric the service exports (`GET /metrics`, Prometheus text), defined once so each feature only records.
 * Names follow Prometheus conventions: snake_case, a unit suffix, `_total` for counters.
 */

/** Seconds, from 5 ms to ~20 s. */
const latencyBoundaries = MetricBoundaries.exponential({ start: 0.005, factor: 2, count: 13 })

/**
 * A family of metrics by their tags' values, each made once with the tags in its key. `Metric.tagged` adds its tags
 * on every update, in a new array, so every update looked the tagged key up in the registry again (hashing it); a
 * member of a family is looked up once, on its first update. Tag values are few (routes, statuses, RPC methods,
 * outcomes, rules), so a family stays small.
 */
// `MetricKeyType<any, any>`: the constraint effect's own MetricKey and Metric put on a key type (MetricKey.d.ts);
// a narrower one here is refused where they take it.
const family = <Type extends MetricKeyType.MetricKeyType<any, any>>(key: MetricKey.MetricKey<Type>, names: ReadonlyArray<string>) => {
  const made = new Map<string, Metric.Metric<Type, MetricKeyType.MetricKeyType.InType<Type>, MetricKeyType.MetricKeyType.OutType<Type>>>()
  return (...values: ReadonlyArray<string>) => {
    const id = values.join("\u0000")
    let metric = made.get(id)
    if (metric === undefined) {
      metric = Metric.fromMetricKey(MetricKey.taggedWithLabels(key, names.map((name, i) => MetricLabel.make(name, values[i] ?? ""))))
      made.set(id, metric)
    }
    return metric
  }
}

/** HTTP requests, tagged `route` (the matched route template, never a raw path with tokens) and `status`. */
const httpRequestsKey = MetricKey.counter("http_requests_total", { description: "HTTP requests answered", incremental: true })
export const httpRequests = Metric.fromMetricKey(httpRequestsKey)
/** By route and status. */
export const httpRequestsOf = family(httpRequestsKey, ["route", "status"])
/** By route and status. */
export const httpDurationOf = family(
  MetricKey.histogram("http_request_duration_seconds", latencyBoundaries, "HTTP request latency"),
  ["route", "status"]
)

/** Final outcomes of sponsored transfers, tagged `outcome` (SUCCESS, FAILED, REJECTED, EXPIRED). */
const transferOutcomesKey = MetricKey.counter("transfers_total", { description: "transfers by final outcome", incremental: true })
export const transferOutcomes = Metric.fromMetricKey(transferOutcomesKey)
const transferOutcomeOf = family(transferOutcomesKey, ["outcome"])

/** Sponsor refusals, tagged `rule` (operation, function, contract, arguments, auth, fee, timebounds, quota, payout). */
const sponsorRefusalsKey = MetricKey.counter("sponsor_refusals_total", { description: "sponsor policy refusals by rule", incremental: true })
export const sponsorRefusals = Metric.fromMetricKey(sponsorRefusalsKey)
const sponsorRefusalOf = family(sponsorRefusalsKey, ["rule"])

/** Stellar RPC calls, tagged `method` and `result` (ok, error). */
const rpcCallsKey = MetricKey.counter("stellar_rpc_calls_total", { description: "Stellar RPC calls", incremental: true })
export const rpcCalls = Metric.fromMetricKey(rpcCallsKey)
const rpcCallOf = family(rpcCallsKey, ["method", "result"])
const rpcDurationOf = family(
  MetricKey.histogram("stellar_rpc_call_duration_seconds", latencyBoundaries, "Stellar RPC call latency"),
  ["method"]
)

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
          Metric.increment(rpcCallOf(method, Exit.isSuccess(exit) ? "ok" : "error")),
          Metric.update(rpcDurationOf(method), Number(end - start) / 1e9)
        ], { discard: true }))))

/** A transfer reached a final state: SUCCESS, FAILED, REJECTED or EXPIRED. */
export const countTransferOutcome = (outcome: string) => Metric.increment(transferOutcomeOf(outcome))

/** The sponsor refused to pay, by the rule that refused. */
export const countSponsorRefusal = (refusal: { readonly rule: string }) =>
  Metric.increment(sponsorRefusalOf(refusal.rule))
