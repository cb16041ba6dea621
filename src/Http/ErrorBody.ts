import { Headers, HttpServerResponse } from "@effect/platform"

const REASONS: Record<number, string> = {
  400: "bad request",
  401: "unauthorized",
  403: "forbidden",
  404: "not found",
  405: "method not allowed",
  408: "request timeout",
  413: "request body too large",
  415: "unsupported media type",
  429: "too many requests",
  431: "request header fields too large",
  500: "internal server error",
  501: "not implemented",
  502: "upstream unavailable",
  503: "service unavailable",
  504: "gateway timeout"
}

export const reasonFor = (status: number) => REASONS[status] ?? (status >= 500 ? "server error" : "request failed")

/**
 * The `_tag` of the error class the API declares for a status (Domain/Errors.ts), so that an answer made outside a
 * handler (the body checks, the framework's decode failures, a defect) validates against the declared schema and
 * the typed client decodes it as that error.
 */
const TAGS: Record<number, string> = {
  400: "InvalidRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  408: "RequestTimeout",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "RateLimited",
  431: "HeadersTooLarge",
  500: "InternalError",
  503: "ServiceUnavailable"
}

/** The body of an error answer: `{_tag, error}` (just `{error}` for a status no error class declares). */
export const errorBody = (status: number, error: string = reasonFor(status)) =>
  TAGS[status] === undefined ? { error } : { _tag: TAGS[status], error }

export const errorResponse = (status: number, error: string = reasonFor(status)) =>
  HttpServerResponse.unsafeJson(errorBody(status, error), { status })

/** Seconds a client should wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5

export const databaseUnavailable = () =>
  errorResponse(503, "database unavailable").pipe(
    HttpServerResponse.setHeader("retry-after", String(DATABASE_RETRY_AFTER_SECONDS))
  )

interface DecodeIssue {
  readonly path?: ReadonlyArray<unknown>
  readonly message?: unknown
}

const parseBody = (response: HttpServerResponse.HttpServerResponse): unknown => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    return JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return undefined
  }
}

/** The framework's own decode failures carry `issues`; they become one readable `error` string. */
const describeDecodeFailure = (body: { issues?: unknown; message?: unknown }): string | undefined => {
  if (!Array.isArray(body.issues)) return undefined
  const parts = (body.issues as ReadonlyArray<DecodeIssue>).slice(0, 5).map((issue) => {
    const path = Array.isArray(issue.path) && issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""
    return `${path}${typeof issue.message === "string" ? issue.message : "invalid value"}`
  })
  return `invalid request: ${parts.join("; ")}`.slice(0, 1000)
}

/** A 503 tells when to come back: the database's outage or a not-ready instance alike. */
const withRetryAfter = (response: HttpServerResponse.HttpServerResponse) =>
  response.status === 503 && response.headers["retry-after"] === undefined
    ? HttpServerResponse.setHeader(response, "retry-after", String(DATABASE_RETRY_AFTER_SECONDS))
    : response

/**
 * Every non-2xx answer leaves as `{error: string}`: framework answers with empty bodies (unknown routes,
 * defects) and decode failures are rewritten here; our own errors already have that shape. A 500 also names the
 * request id, the key to its logged cause.
 */
export const normalizeErrorBody = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
): HttpServerResponse.HttpServerResponse => withRetryAfter(rewritten(response, requestId))

const rewritten = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400) return response
  const parsed = parseBody(response)
  const body = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? parsed as { error?: unknown; issues?: unknown; message?: unknown }
    : undefined
  const withId = response.status === 500
  const tag = TAGS[response.status]
  if (typeof body?.error === "string" && (!withId || "requestId" in body) && (tag === undefined || "_tag" in body)) {
    return response
  }
  const json = typeof body?.error === "string"
    ? { ...(tag === undefined ? {} : { _tag: tag }), ...body, ...(withId ? { requestId } : {}) }
    : {
      ...(tag === undefined ? {} : { _tag: tag }),
      error: (body === undefined ? undefined : describeDecodeFailure(body)) ?? reasonFor(response.status),
      ...(withId ? { requestId } : {})
    }
  const headers = Headers.remove(response.headers, ["content-type", "content-length"])
  return HttpServerResponse.unsafeJson(json, { status: response.status, headers })
}
