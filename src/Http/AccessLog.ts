import { Effect, Metric } from "effect"
import { httpDurationOf, httpRequestsOf } from "../Observability/Metrics.ts"

export interface Answered {
  readonly method: string
  /** The route label, never the raw path: paths carry invite tokens, queries carry search terms. */
  readonly route: string
  readonly status: number
  readonly started: number
}

/** One line and one metric sample per answer; the request id comes with the request's log annotations. */
export const recordAnswer = ({ method, route, started, status }: Answered) =>
  Effect.suspend(() => {
    const ms = Date.now() - started
    const code = String(status)
    return Effect.zipRight(
      Effect.zipRight(Metric.increment(httpRequestsOf(route, code)), Metric.update(httpDurationOf(route, code), ms / 1000)),
      Effect.logInfo("http").pipe(Effect.annotateLogs({ method, route, status, ms }))
    )
  })
