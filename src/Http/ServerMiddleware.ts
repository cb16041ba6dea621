import { HttpApp, HttpMethod, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Either } from "effect"
import { MAX_BODY_BYTES } from "../Domain/Batch.ts"
import { errorResponse, normalizeErrorBody } from "./ErrorBody.ts"


/** SEP-10's token step may be posted as a form, as stock wallets do. */
const FORM_ROUTES = new Set(["/auth"])

/** Paths are logged without secrets (invite tokens) and without query strings. */
export const loggablePath = (url: string) =>
  url.split("?")[0]!.replace(/^\/invites\/[^/]+/, "/invites/:token").replace(/^\/orgs\/join\/[^/]+/, "/orgs/join/:token")

const isJson = (contentType: string) => /^application\/([a-z0-9.+-]+\+)?json\b/.test(contentType)

type BodyRead =
  | { readonly _tag: "Body"; readonly text: string }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Failed" }

/**
 * Reads at most MAX_BODY_BYTES; past that it stops keeping data and lets the rest drain, so that the 413
 * still reaches the client (the platform's own limit destroys the socket instead).
 */
const readBounded = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<BodyRead>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let size = 0
    const detach = () => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) return chunks.push(chunk)
      detach()
      incoming.resume()
      resume(Effect.succeed({ _tag: "TooLarge" }))
    }
    const onEnd = () => {
      detach()
      resume(Effect.succeed({ _tag: "Body", text: Buffer.concat(chunks).toString("utf8") }))
    }
    const onError = () => {
      detach()
      resume(Effect.succeed({ _tag: "Failed" }))
    }
    incoming.on("data", onData)
    incoming.on("end", onEnd)
    incoming.on("error", onError)
    return Effect.sync(detach)
  })

/** The request as handlers see it: its body already read, so every body accessor reuses that text. */
const withBody = (request: HttpServerRequest.HttpServerRequest, text: string): HttpServerRequest.HttpServerRequest =>
  Object.create(request, { text: { value: Effect.succeed(text) } })

const BATCH_RUN_ROUTE = "/batch"

/** Over the limit: 413, saying what fits (on a batch run, how to split it). */
const tooLarge = (path: string) =>
  errorResponse(
    413,
    path === BATCH_RUN_ROUTE
      ? `request body over ${MAX_BODY_BYTES / 1024} KiB: a batch run holds 6 real confidential transfers ` +
        "(about 32 KB each); split the transfers into several jobs (the typed client's runPayroll does)"
      : `request body over ${MAX_BODY_BYTES / 1024} KiB`
  ).pipe(HttpServerResponse.setHeader("connection", "close"))

/**
 * Bodies are limited before they are buffered (from Content-Length, and while reading chunked ones),
 * must be JSON (or a form on SEP-10's token step), and must parse.
 */
const checkBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!HttpMethod.hasBody(request.method)) return Either.right(request)
    const path = request.url.split("?")[0]!
    const length = request.headers["content-length"]
    if (length !== undefined && Number(length) > MAX_BODY_BYTES) return Either.left(tooLarge(path))
    const contentType = (request.headers["content-type"] ?? "").toLowerCase().trim()
    const form = contentType.startsWith("application/x-www-form-urlencoded") && FORM_ROUTES.has(path)
    if (contentType !== "" && !isJson(contentType) && !form) {
      return Either.left(errorResponse(415, "request bodies must be application/json"))
    }
    const body = yield* readBounded(request)
    if (body._tag === "TooLarge") return Either.left(tooLarge(path))
    if (body._tag === "Failed") return Either.left(errorResponse(400, "could not read the request body"))
    if (!form && body.text.length > 0) {
      try {
        JSON.parse(body.text)
      } catch {
        return Either.left(errorResponse(400, "malformed JSON body"))
      }
    }
    return Either.right(withBody(request, body.text))
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
    const checked = yield* checkBody(request)
    if (Either.isLeft(checked)) {
      yield* accessLog(request, checked.left.status, started)
      return checked.left
    }
    return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, checked.right)
  })
