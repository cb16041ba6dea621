import { Effect, FiberRef, LogLevel } from "effect"
import { httpDurationOf, httpRequestsOf } from "../Observability/Metrics.ts"

export interface Answered {
  readonly method: string
  /** The route label, never the raw path: paths carry invite tokens, queries carry search terms. */
  readonly route: string
  readonly status: number
  readonly started: number
}

/**
 * One line and one metric sample per answer; the request id comes with the request's log annotations. On every
 * answer, so the samples are recorded in place (as `Metric.update` does, with the fiber's metric labels) and the
 * line is neither annotated nor formatted below the minimum log level.
 */
export const recordAnswer = ({ method, route, started, status }: Answered): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const ms = Date.now() - started
    const code = String(status)
    const labels = fiber.getFiberRef(FiberRef.currentMetricLabels)
    httpRequestsOf(route, code).unsafeUpdate(1, labels)
    httpDurationOf(route, code).unsafeUpdate(ms / 1000, labels)
    if (LogLevel.greaterThan(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), LogLevel.Info)) return Effect.void
    return Effect.logInfo("http").pipe(Effect.annotateLogs({ method, route, status, ms }))
  })
