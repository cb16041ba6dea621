import { Headers, type HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

const REASONS: Record<number, string> = {
  400: "bad request",
  401: "unauthorized",
  403: "forbidden",
  404: "not found",
  405: "method not allowed",
  413: "request body too large",
  415: "unsupported media type",
  429: "too many requests",
  500: "internal server error",
  501: "not implemented",
  502: "upstream unavailable",
  503: "service unavailable",
  504: "gateway timeout"
}

export const reasonFor = (status: number) => REASONS[status] ?? (status >= 500 ? "server error" : "request failed")

export const errorResponse = (status: number, error: string = reasonFor(status)) =>
  HttpServerResponse.unsafeJson({ error }, { status })

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

/**
 * Every non-2xx answer leaves as `{error: string}`: framework answers with empty bodies (unknown routes,
 * defects) and decode failures are rewritten here; our own errors already have that shape.
 */
export const normalizeErrorBody: HttpApp.PreResponseHandler = (_request, response) => {
  if (response.status < 400) return Effect.succeed(response)
  const body = parseBody(response) as { error?: unknown; issues?: unknown; message?: unknown } | undefined
  if (body !== undefined && body !== null && typeof body.error === "string") return Effect.succeed(response)
  const error = (body !== undefined && body !== null ? describeDecodeFailure(body) : undefined) ?? reasonFor(response.status)
  const headers = Headers.remove(response.headers, ["content-type", "content-length"])
  return Effect.succeed(HttpServerResponse.unsafeJson({ error }, { status: response.status, headers }))
}
