import { Effect, Metric } from "effect"
import { httpDuration, httpRequests } from "../Observability/Metrics.ts"

export interface Answered {
  readonly method: string
  /** The route label, never the raw path: paths carry invite tokens, queries carry search terms. */
  readonly route: string
  readonly status: number
  readonly started: number
}

/** One line and one metric sample per answer; the request id comes with the request's log annotations. */
export const recordAnswer = ({ method, route, started, status }: Answered) =>
  Effect.gen(function*() {
    const ms = Date.now() - started
    const code = String(status)
    yield* Metric.increment(Metric.tagged(Metric.tagged(httpRequests, "route", route), "status", code))
    yield* Metric.update(Metric.tagged(Metric.tagged(httpDuration, "route", route), "status", code), ms / 1000)
    yield* Effect.logInfo("http").pipe(Effect.annotateLogs({ method, route, status, ms }))
  })
