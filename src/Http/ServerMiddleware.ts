import { Headers, HttpApp, HttpMethod, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Context, Effect, Either, FiberRef, HashMap, Option } from "effect"
import { MAX_BODY_BYTES } from "../Domain/RequestLimits.ts"
import { recordAnswer } from "./AccessLog.ts"
import { withBody } from "./BufferedRequest.ts"
import { endWhenClientLeaves } from "./ClientGone.ts"
import { withAnyOrigin } from "./Cors.ts"
import { logDefect, realDefects } from "./Defects.ts"
import { databaseUnavailable, errorResponse, normalizeErrorBody } from "./ErrorBody.ts"
import type { IdempotencyKeys } from "./Idempotency/Idempotency.ts"
import { IDEMPOTENCY_KEY_HEADER } from "./Idempotency/IdempotencyKey.ts"
import { isJsonMediaType, parseJsonBody } from "./JsonBody.ts"
import { readBounded } from "./ReadBody.ts"
import { requestIdOf } from "./RequestId.ts"
import { findUrlTextIssue, originForm, type RouteMatch, type RouteTable, splitTarget, UNMATCHED } from "./RequestTarget.ts"
import { withSecurityHeaders } from "./SecurityHeaders.ts"

/** SEP-10's token step may be posted as a form, as stock wallets do. */
const FORM_ROUTES = new Set(["/auth"])

const BATCH_RUN_ROUTE = "/batch"

/** Over the limit: 413, saying what fits (on a batch run, how to split it). */
const tooLarge = (route: string) =>
  errorResponse(
    413,
    route === BATCH_RUN_ROUTE
      ? `request body over ${MAX_BODY_BYTES / 1024} KiB: a batch run holds 6 real confidential transfers (about 42,000 ` +
        "characters of base64 each, the 14,592-byte proof travelling twice with the source's authorization entry; 5 " +
        "with the 16,224-byte zero-knowledge proof); split " +
        "the transfers into several jobs (the typed client's runPayroll does)"
      : `request body over ${MAX_BODY_BYTES / 1024} KiB`
  ).pipe(HttpServerResponse.setHeader("connection", "close"))

const badRequest = (error: string) => errorResponse(400, error)

/**
 * Bodies are limited before they are buffered (from Content-Length, and while reading chunked ones), must be JSON
 * (any JSON media type; a form on SEP-10's token step), must parse, nest at most 64 deep and hold only text the
 * database can store. Handlers get the body read here through every accessor, with a JSON media type presented as
 * `application/json` so that the framework parses it.
 */
const checkBody = (request: HttpServerRequest.HttpServerRequest, route: string, ownJsonErrors: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const length = request.headers["content-length"]
    if (length !== undefined && Number(length) > MAX_BODY_BYTES) return Either.left(tooLarge(route))
    const contentType = (request.headers["content-type"] ?? "").toLowerCase().trim()
    const form = contentType.startsWith("application/x-www-form-urlencoded") && FORM_ROUTES.has(route)
    if (contentType !== "" && !isJsonMediaType(contentType) && !form) {
      return Either.left(errorResponse(415, "request bodies must be application/json"))
    }
    const body = yield* readBounded(request, MAX_BODY_BYTES)
    switch (body._tag) {
      case "TooLarge":
        return Either.left(tooLarge(route))
      case "Failed":
        return Either.left(badRequest("could not read the request body"))
      case "TimedOut":
        return Either.left(errorResponse(408, "the request body did not arrive in time").pipe(
          HttpServerResponse.setHeader("connection", "close")
        ))
    }
    if (form) {
      const issue = findUrlTextIssue({ route, segments: [] }, body.text)
      if (issue !== undefined) return Either.left(badRequest(`invalid request: ${issue.field}: ${issue.problem}`))
      return Either.right(withBody(request, { text: body.text, json: Option.none() }))
    }
    const parsed = parseJsonBody(body.text)
    const asJson = request.modify({ headers: Headers.set(request.headers, "content-type", "application/json") })
    if (Either.isLeft(parsed)) {
      if (!ownJsonErrors.has(route)) return Either.left(badRequest(parsed.left))
      return Either.right(withBody(asJson, { text: body.text, json: Option.none() }))
    }
    return Either.right(withBody(asJson, { text: body.text, json: Option.some(parsed.right) }))
  })

/**
 * What is checked before the app runs; a Left is answered at once. The target and its text are told at once; a body
 * is read (and checked) only on a method that has one.
 */
const checkRequest = (
  request: HttpServerRequest.HttpServerRequest,
  target: string | undefined,
  query: string,
  match: RouteMatch,
  ownJsonErrors: ReadonlySet<string>
): Either.Either<HttpServerRequest.HttpServerRequest, HttpServerResponse.HttpServerResponse> | Effect.Effect<Either.Either<HttpServerRequest.HttpServerRequest, HttpServerResponse.HttpServerResponse>> => {
  if (target === undefined) return Either.left(badRequest("the request target must be a path"))
  const issue = findUrlTextIssue(match, query)
  if (issue !== undefined) return Either.left(badRequest(`invalid request: ${issue.field}: ${issue.problem}`))
  const routed = target === request.url ? request : request.modify({ url: target })
  return HttpMethod.hasBody(request.method) ? checkBody(routed, match.route, ownJsonErrors) : Either.right(routed)
}

const UNROUTED: RouteMatch = { route: UNMATCHED, segments: [] }

export interface ServerOptions<R> {
  /** `Idempotency-Key` on the operations that create something; without it the header is not looked at. */
  readonly idempotency?: IdempotencyKeys<R>
  /**
   * Routes that answer a body that is not JSON (or not JSON the database could store) in their own protocol: the
   * body reaches their handler as text. Size, media type and time limits still apply.
   */
  readonly ownJsonErrors?: ReadonlySet<string>
}

const NONE: ReadonlySet<string> = new Set()

/**
 * Around every request: a request id on its log lines and its answer; the absolute form of a target routed as its
 * path; bodies and URLs checked (above); `Idempotency-Key` honoured (./Idempotency.ts) on a checked request; every
 * answer, the app's or ours, replays included, given `{error}` bodies, security headers, CORS on the any-origin
 * routes, one access-log line and its metrics. A defect the app did not answer is logged here once.
 *
 * It runs on every request, so it spends few effects: what needs no effect is done in place, the request id is set
 * on the request's own fiber (which ends with the request: nothing to restore), and the request is provided again
 * only when it was rewritten.
 */
export const serverMiddleware = <R = never>(routes: RouteTable, options: ServerOptions<R> = {}) =>
(app: HttpApp.Default): HttpApp.Default<never, R> =>
  Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest>((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    endWhenClientLeaves(request)
    const requestId = requestIdOf(request.headers)
    const started = Date.now()
    const target = originForm(request.url)
    const split = target === undefined ? undefined : splitTarget(target)
    const match = split === undefined ? UNROUTED : routes.match(split.path)
    const authenticated = request.headers["authorization"] !== undefined
    let answered: HttpServerResponse.HttpServerResponse | undefined
    let settle: ((final: HttpServerResponse.HttpServerResponse) => Effect.Effect<void>) | undefined

    const answer = (response: HttpServerResponse.HttpServerResponse) => {
      const final = withAnyOrigin(
        request.url,
        withSecurityHeaders(normalizeErrorBody(response, requestId), { requestId, authenticated })
      )
      answered = final
      const recorded = Effect.as(recordAnswer({ method: request.method, route: match.route, status: final.status, started }), final)
      return settle === undefined ? recorded : Effect.zipRight(settle(final), recorded)
    }

    const guarded = (checked: HttpServerRequest.HttpServerRequest) => {
      // Without the header the guard passes every request: it is not asked (most requests, every read).
      if (options.idempotency === undefined || target === undefined || checked.headers[IDEMPOTENCY_KEY_HEADER] === undefined) {
        return handle(checked, app)
      }
      return Effect.flatMap(
        options.idempotency.guard(checked, match.route, target).pipe(
          Effect.catchTag("ServiceUnavailable", () => Effect.succeed({ _tag: "Answer", response: databaseUnavailable() } as const))
        ),
        (guard) => {
          if (guard._tag === "Answer") return answer(guard.response)
          if (guard._tag === "Pass") return handle(checked, app)
          settle = guard.settle
          return handle(checked, guard.around(app))
        }
      )
    }

    const handle = <E, R2>(checked: HttpServerRequest.HttpServerRequest, handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R2>) =>
      // Providing a service copies the request's whole context: only when the request was rewritten (a target in
      // absolute form, a body read here).
      (checked === request ? handler : Effect.provideService(handler, HttpServerRequest.HttpServerRequest, checked)).pipe(
        Effect.catchAllCause((cause) => {
          // The app has answered (a bare 500 for a defect nothing caught); what is left is to say why, once.
          const unexplained = realDefects(cause).length > 0 || ((answered?.status ?? 500) >= 500 && Cause.failures(cause).length > 0)
          const logged = unexplained ? logDefect(cause) : Effect.void
          return answered === undefined ? Effect.zipRight(logged, Effect.failCause(cause)) : Effect.as(logged, answered)
        })
      )

    const checked = checkRequest(request, target, split?.query ?? "", match, options.ownJsonErrors ?? NONE)
    const run = Either.isEither(checked)
      ? Either.match(checked, { onLeft: answer, onRight: guarded })
      : Effect.flatMap(checked, Either.match({ onLeft: answer, onRight: guarded }))
    return Effect.zipRight(
      FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("requestId", requestId)),
      Effect.zipRight(HttpApp.appendPreResponseHandler((_request, response) => answer(response)), run)
    )
  })
