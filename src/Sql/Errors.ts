import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Predicate } from "effect"
import { ServiceUnavailable } from "../Domain/Errors.ts"

const sqlState = (cause: unknown): string | undefined => {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined
  // Classes are 00–58, F0, HV, P0 and XX; a Node error code (EPIPE) is not one.
  return typeof code === "string" && /^[0-9FHPX][0-9A-Z]{4}$/.test(code) ? code : undefined
}

/** PostgreSQL's unique_violation, whichever constraint raised it. */
export const isUniqueViolation = (error: SqlError): boolean => sqlState(error.cause) === "23505"

/** Socket-level failures: the server cannot be reached, or the connection broke. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN"
])

/** What node-postgres and its pool say when a connection dies or cannot be made. */
const CONNECTION_MESSAGE = /connection terminated|timeout exceeded when trying to connect|connection timed out|not queryable|no client returned|server closed the connection/i

/**
 * Server states that mean "the database is unavailable", not "this query is wrong": class 08 (connection exception),
 * 57P01–57P03 (administrator or crash shutdown, cannot connect now), 53300 (too many connections).
 */
const isUnavailableState = (state: string) =>
  state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03" || state === "53300"

const isSocketFailure = (cause: unknown, depth = 0): boolean => {
  if (typeof cause !== "object" || cause === null || depth > 3) return false
  const { code, message, errors } = cause as { code?: unknown; message?: unknown; errors?: unknown }
  if (typeof code === "string" && SOCKET_CODES.has(code)) return true
  if (typeof message === "string" && CONNECTION_MESSAGE.test(message)) return true
  // Node reports a refused multi-address connect as an AggregateError of the per-address errors.
  return Array.isArray(errors) && errors.some((inner) => isSocketFailure(inner, depth + 1))
}

/**
 * A connection-class SqlError: the database is down or unreachable, so the request may succeed later (503), as
 * opposed to a query the server refused (a bug, 500). With a SQLSTATE the server answered, and only the
 * states above count; without one the cause must be a socket or connection failure.
 */
export const isConnectionError = (error: unknown): boolean => {
  if (!Predicate.isTagged(error, "SqlError")) return false
  const cause = (error as SqlError).cause
  const state = sqlState(cause)
  return state !== undefined ? isUnavailableState(state) : isSocketFailure(cause)
}

/** What the driver said, for the log line: the cause's message when it has one. */
const detailOf = (error: SqlError): string => {
  const cause = error.cause as { message?: unknown } | undefined
  return typeof cause?.message === "string" && cause.message.length > 0 ? cause.message : error.message
}

/**
 * A SqlError as the API sees it: a connection-class one (the database is down) is the declared `ServiceUnavailable`
 * (503, retried by clients and workers alike); any other is a defect (a query the server refused is a bug: 500).
 */
export const unavailableOrDie = (error: unknown): Effect.Effect<never, ServiceUnavailable> =>
  isConnectionError(error) ? Effect.fail(ServiceUnavailable.because(detailOf(error as SqlError))) : Effect.die(error)

/** PostgreSQL's query_canceled: a `pg_cancel_backend` reached the statement (this service sets no statement_timeout). */
export const isQueryCanceled = (error: unknown): boolean =>
  Predicate.isTagged(error, "SqlError") && sqlState((error as SqlError).cause) === "57014"

/**
 * Runs a statement again, once, when a cancel meant for another statement reached it. Interrupting a fiber mid-query
 * makes @effect/sql-pg send `pg_cancel_backend` for that connection; when the query had already ended, the signal can
 * land on the next statement the connection runs, which belongs to someone else (seen in CI: a shutdown's lease
 * release, and earlier a transfer's statement). A query whose own fiber was interrupted never sees the failure, so a
 * failed statement with query_canceled was hit by a stray cancel. Outside a transaction the statement rolled back and
 * is safe to run again; inside one the transaction is aborted, so the failure stands for the caller to roll back.
 */
export const retryStrayCancel = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.catchIf(self, isQueryCanceled, (error) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (inTransaction) =>
      Option.isSome(inTransaction) ? Effect.fail(error) : self))

/**
 * `Effect.orDie` for repositories: every failure is a defect (a row that does not decode, a refused query) except
 * the database going away, which stays a typed `ServiceUnavailable`. A statement a stray cancel reached runs again
 * once (`retryStrayCancel`).
 */
export const orUnavailable = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, ServiceUnavailable, R> =>
  Effect.catchAll(retryStrayCancel(self), unavailableOrDie)

/**
 * For a query inside a caller's transaction: its SqlError (and a ServiceUnavailable from the outbox or the audit
 * trail) stays typed, for the transaction to roll back on; a row that does not decode is a defect.
 */
export const undecodableDies = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, (e): e is Extract<E, { readonly _tag: "ParseError" }> => e._tag === "ParseError", Effect.die)
