import { Effect, Metric } from "effect"
import { httpMetricsOf } from "../Observability/Metrics.ts"

export interface Answered {
  readonly method: string
  /** The route label, never the raw path: paths carry invite tokens, queries carry search terms. */
  readonly route: string
  readonly status: number
  readonly started: number
}

/**
 * The two metrics of each route and status, made once: tagging them on every answer made new metric keys, each
 * hashed and looked up in the registry. Route labels are the route table's templates and statuses are few, so this
 * stays small.
 */
const made = new Map<string, ReturnType<typeof httpMetricsOf>>()

const metricsOf = (route: string, status: number) => {
  const key = `${status} ${route}`
  let metrics = made.get(key)
  if (metrics === undefined) {
    metrics = httpMetricsOf(route, String(status))
    made.set(key, metrics)
  }
  return metrics
}

/** One line and one metric sample per answer; the request id comes with the request's log annotations. */
export const recordAnswer = ({ method, route, started, status }: Answered) =>
  Effect.suspend(() => {
    const ms = Date.now() - started
    const { duration, requests } = metricsOf(route, status)
    return Effect.zipRight(
      Effect.zipRight(Metric.increment(requests), Metric.update(duration, ms / 1000)),
      Effect.logInfo("http").pipe(Effect.annotateLogs({ method, route, status, ms }))
    )
  })
