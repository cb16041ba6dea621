import { HttpApiBuilder, type HttpApp, HttpServerRespondable, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { ServiceUnavailable } from "../Domain/Errors.ts"
import { isConnectionError } from "../Sql/Errors.ts"
import { databaseUnavailable, errorResponse } from "./ErrorBody.ts"

/** Defects the framework answers by itself: a response (or something that makes one) used as a short-circuit. */
const isResponseDefect = (defect: unknown) =>
  HttpServerResponse.isServerResponse(defect) || HttpServerRespondable.isRespondable(defect)

/** The defect itself, or what it wraps (`cause`), when the database could not be reached. */
const connectionFailure = (defect: unknown): Option.Option<{ readonly message: string }> => {
  let current = defect
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    if (isConnectionError(current)) {
      const cause = (current as { cause?: { message?: unknown } }).cause
      const detail = typeof cause?.message === "string" && cause.message.length > 0 ? cause.message : String(current)
      return Option.some({ message: detail })
    }
    current = (current as { cause?: unknown }).cause
  }
  return Option.none()
}

/** The defects of a cause that are failures of ours, not the framework's response short-circuits. */
export const realDefects = (cause: Cause.Cause<unknown>) => [...Cause.defects(cause)].filter((d) => !isResponseDefect(d))

/** An outage is one line, without a stack: a stack per request says nothing more while the database is down. */
export const logDatabaseUnavailable = (message: string) =>
  Effect.logWarning("database unavailable").pipe(Effect.annotateLogs({ cause: message }))

/** The database's outage behind a failure: the declared `ServiceUnavailable`, with what the driver said. */
const unavailableFailure = (failure: unknown): Option.Option<{ readonly message: string }> =>
  failure instanceof ServiceUnavailable ? Option.some({ message: failure.detail ?? failure.error }) : Option.none()

const outageOf = (cause: Cause.Cause<unknown>) =>
  [...Cause.failures(cause)].map(unavailableFailure).find(Option.isSome) ??
    realDefects(cause).map(connectionFailure).find(Option.isSome)

/** Once per request: an outage as one warning line; any other defect as an error with its cause. */
export const logDefect = (cause: Cause.Cause<unknown>) => {
  const outage = outageOf(cause)
  return outage !== undefined ? logDatabaseUnavailable(outage.value.message) : Effect.logError("request failed with a defect", cause)
}

/**
 * What answers a defect: a connection-class SqlError (the database is down or unreachable) is 503 with
 * `Retry-After`; any other is 500 (the serve middleware adds the request id to the body; it is on every log line).
 */
export const answerDefect = (cause: Cause.Cause<unknown>) =>
  Effect.as(logDefect(cause), outageOf(cause) !== undefined ? databaseUnavailable() : errorResponse(500))

/**
 * Around the router: defects leaving a handler are answered here, before the framework would turn them into a bare
 * 500. Typed failures (the API's errors, unknown routes, decode failures) pass on to the framework's encoding; the
 * database's outage among them is logged here, once per request.
 */
export const answerDefects = (app: HttpApp.Default): HttpApp.Default =>
  Effect.catchAllCause(app, (cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
    if (realDefects(cause).length > 0) return answerDefect(cause)
    // The declared ServiceUnavailable is encoded by the framework (503); its one log line is written here.
    const outage = [...Cause.failures(cause)].map(unavailableFailure).find(Option.isSome)
    return outage === undefined ? Effect.failCause(cause) : Effect.zipRight(logDatabaseUnavailable(outage.value.message), Effect.failCause(cause))
  })

/** Provide to `HttpApiBuilder.serve`, like the CORS middleware. */
export const DefectsLive = HttpApiBuilder.middleware(answerDefects)
