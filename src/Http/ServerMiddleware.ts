import { FileSystem, HttpApp, HttpIncomingMessage, HttpMethod, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { errorResponse, normalizeErrorBody } from "./ErrorBody.ts"

export const MAX_BODY_BYTES = 256 * 1024

/** SEP-10's token step may be posted as a form, as stock wallets do. */
const FORM_ROUTES = new Set(["/auth"])

/** Paths are logged without secrets (invite tokens) and without query strings. */
const loggablePath = (url: string) => url.split("?")[0]!.replace(/^\/invites\/[^/]+/, "/invites/:token")

const isJson = (contentType: string) => /^application\/([a-z0-9.+-]+\+)?json\b/.test(contentType)

/**
 * Bodies are limited before they are buffered (from Content-Length, and while reading chunked ones),
 * must be JSON, and must parse; the parsed text stays cached on the request for the handlers.
 */
const checkBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!HttpMethod.hasBody(request.method)) return Option.none<HttpServerResponse.HttpServerResponse>()
    const length = request.headers["content-length"]
    if (length !== undefined && Number(length) > MAX_BODY_BYTES) return Option.some(errorResponse(413))
    const contentType = (request.headers["content-type"] ?? "").toLowerCase().trim()
    const path = request.url.split("?")[0]!
    const form = contentType.startsWith("application/x-www-form-urlencoded") && FORM_ROUTES.has(path)
    if (contentType !== "" && !isJson(contentType) && !form) {
      return Option.some(errorResponse(415, "request bodies must be application/json"))
    }
    const text = yield* request.text.pipe(Effect.either)
    if (text._tag === "Left") {
      const tooLarge = String(text.left.cause).includes("maxBytes exceeded")
      return Option.some(tooLarge ? errorResponse(413) : errorResponse(400, "could not read the request body"))
    }
    if (form || text.right.length === 0) return Option.none()
    try {
      JSON.parse(text.right)
      return Option.none()
    } catch {
      return Option.some(errorResponse(400, "malformed JSON body"))
    }
  })

const accessLog = (request: HttpServerRequest.HttpServerRequest, status: number, started: number) =>
  Effect.logInfo("http").pipe(
    Effect.annotateLogs({ method: request.method, path: loggablePath(request.url), status, ms: Date.now() - started })
  )

export const serverMiddleware = (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = Date.now()
    yield* HttpApp.appendPreResponseHandler((req, response) =>
      normalizeErrorBody(req, response).pipe(Effect.tap((final) => accessLog(req, final.status, started)))
    )
    const rejected = yield* checkBody(request)
    if (Option.isSome(rejected)) {
      yield* accessLog(request, rejected.value.status, started)
      return rejected.value
    }
    return yield* app
  }).pipe(Effect.provideService(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(MAX_BODY_BYTES))))
