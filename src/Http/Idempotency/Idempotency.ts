import { Headers, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Duration, Effect, Fiber, Option, Schedule } from "effect"
import { createHash, randomUUID } from "node:crypto"
import type { ServiceUnavailable } from "../../Domain/Errors.ts"
import { errorResponse } from "../ErrorBody.ts"
import { IdempotencyRepo, type KeyUse, type StoredAnswer } from "./IdempotencyRepo.ts"
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_TTL, IDEMPOTENT_OPERATIONS, parseIdempotencyKey } from "./IdempotencyKey.ts"

/** Who is asking, as the scope their keys live in; none when the request carries no valid session (the app says 401). */
export type CallerOf<R> = (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Option.Option<string>, never, R>

/** A claim lives this long unless renewed, so that a stopped instance's keys are free again soon. */
const LEASE = Duration.seconds(30)
const RENEW_EVERY = Duration.seconds(10)

/** Answers larger than this are not kept (none of the operations' answers comes near it). */
export const MAX_STORED_BODY = 1024 * 1024

/** The headers a replay repeats; the rest (request id, security headers) are the replay's own. */
const KEPT_HEADERS = ["content-type", "location"]

/** Statuses worth retrying are not kept (the draft leaves which answers to keep to the resource): 5xx, 408, 429. */
const keeps = (status: number) => status < 500 && status !== 408 && status !== 429

/** `POST /batches/:id/payouts`: the method and route label of each operation that takes the header. */
const OPERATIONS = new Set(IDEMPOTENT_OPERATIONS.map((operation) => operation.replace(/\{[^}]+\}/g, ":id")))

const json = (status: number, body: object) => HttpServerResponse.unsafeJson(body, { status })

/** Object keys sorted, no spaces: the same JSON sent with other whitespace or key order is the same request. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(",")}}`
  }
  return JSON.stringify(value) ?? ""
}

const fingerprintOf = (request: HttpServerRequest.HttpServerRequest, target: string) =>
  Effect.map(Effect.orElseSucceed(request.text, () => ""), (text) => {
    let body = text
    try {
      if (text !== "") body = canonical(JSON.parse(text))
    } catch {
      // not JSON (the body checks let only JSON through here): the bytes are the request
    }
    return createHash("sha256").update(`${request.method} ${target}\n${body}`).digest("base64url")
  })

const replay = (answer: StoredAnswer) =>
  HttpServerResponse.uint8Array(answer.body, {
    status: answer.status,
    headers: Headers.fromInput({ ...Object.fromEntries(answer.headers), "idempotent-replayed": "true" })
  })

const toStored = (response: HttpServerResponse.HttpServerResponse): StoredAnswer | undefined => {
  const body = response.body
  const bytes = body._tag === "Uint8Array" ? body.body : body._tag === "Empty" ? new Uint8Array() : undefined
  if (bytes === undefined || bytes.length > MAX_STORED_BODY) return undefined
  const headers = KEPT_HEADERS.flatMap((name) => {
    const value = name === "content-type" && body._tag === "Uint8Array" ? response.headers[name] ?? body.contentType : response.headers[name]
    return value === undefined ? [] : [[name, value] as const]
  })
  return { status: response.status, headers, body: bytes }
}

/** What the server middleware does with a request under a key. */
export type Guard =
  | { readonly _tag: "Pass" }
  | { readonly _tag: "Answer"; readonly response: HttpServerResponse.HttpServerResponse }
  | {
    readonly _tag: "Run"
    /** Keeps the final answer (or gives the key back when it is not worth keeping); once, before it is written. */
    readonly settle: (response: HttpServerResponse.HttpServerResponse) => Effect.Effect<void>
    /** Around the app: the lease renewed while it runs, and the key given back if it ends unanswered. */
    readonly around: <A, E, R>(app: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }

/**
 * The draft's rules for one request (IETF draft-ietf-httpapi-idempotency-key-header §2): a request without the
 * header, or to an operation that creates nothing, or without a session, passes; a malformed key is 400; a key
 * another request of the same caller holds is 409; a key used for a different request (body, method or path) is 422;
 * a key whose first request was answered replays that answer. Otherwise the request runs under a claim. Keys are
 * per caller (`callerOf`), and live in PostgreSQL, so any instance replays what another answered.
 */
const guardRequest = <R>(
  request: HttpServerRequest.HttpServerRequest,
  route: string,
  target: string,
  callerOf: CallerOf<R>
): Effect.Effect<Guard, ServiceUnavailable, R | IdempotencyRepo> =>
  Effect.gen(function*() {
    const header = request.headers[IDEMPOTENCY_KEY_HEADER]
    if (header === undefined || !OPERATIONS.has(`${request.method} ${route}`)) return { _tag: "Pass" } as const
    const key = parseIdempotencyKey(header)
    if (key === undefined) {
      return {
        _tag: "Answer",
        response: errorResponse(400, "invalid Idempotency-Key: 1 to 255 printable ASCII characters, a quoted string or bare without spaces")
      } as const
    }
    const scope = yield* callerOf(request)
    if (Option.isNone(scope)) return { _tag: "Pass" } as const
    const repo = yield* IdempotencyRepo
    const use: KeyUse = { scope: scope.value, key, fingerprint: yield* fingerprintOf(request, target) }
    const owner = randomUUID()
    const now = yield* Clock.currentTimeMillis
    const claim = yield* repo.claim(use, owner, {
      now: new Date(now),
      lockedUntil: new Date(now + Duration.toMillis(LEASE)),
      expiresAt: new Date(now + Duration.toMillis(IDEMPOTENCY_KEY_TTL))
    })
    if (claim._tag !== "Claimed" && claim.fingerprint !== use.fingerprint) {
      return {
        _tag: "Answer",
        response: json(422, {
          _tag: "IdempotencyKeyReused",
          error: "this Idempotency-Key was used for a different request: use a new key for a new request"
        })
      } as const
    }
    if (claim._tag === "InProgress") {
      return {
        _tag: "Answer",
        response: json(409, { _tag: "Conflict", error: "a request with this Idempotency-Key is in progress: retry later" })
      } as const
    }
    if (claim._tag === "Answered") return { _tag: "Answer", response: replay(claim.answer) } as const

    let open = true
    const giveBack = Effect.suspend(() => {
      if (!open) return Effect.void
      open = false
      return repo.release(use, owner).pipe(
        Effect.catchAll((e) => Effect.logWarning("could not give an idempotency key back", e))
      )
    })
    const settle = (response: HttpServerResponse.HttpServerResponse) =>
      Effect.suspend(() => {
        if (!open) return Effect.void
        const stored = keeps(response.status) ? toStored(response) : undefined
        if (stored === undefined) return giveBack
        open = false
        return repo.complete(use, owner, stored).pipe(
          Effect.catchAll((e) => Effect.logWarning("could not keep the answer of an idempotency key", e))
        )
      })
    const renewals = Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      yield* repo.renew(use, owner, new Date(at + Duration.toMillis(LEASE)))
    }).pipe(Effect.ignore, Effect.repeat(Schedule.spaced(RENEW_EVERY)), Effect.delay(RENEW_EVERY))
    const around = <A, E, R>(app: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.fork(renewals),
        () => app,
        (fiber) => Effect.zipRight(Fiber.interrupt(fiber), giveBack)
      )
    return { _tag: "Run", settle, around } as const
  })

/** The server middleware's `Idempotency-Key` handling for one request (`route` its label, `target` its path and query). */
export interface IdempotencyKeys<R> {
  readonly guard: (
    request: HttpServerRequest.HttpServerRequest,
    route: string,
    target: string
  ) => Effect.Effect<Guard, ServiceUnavailable, R>
}

/** Idempotency keys per caller, as `callerOf` names them, kept in PostgreSQL (IdempotencyRepo). */
export const idempotencyKeys = <R>(callerOf: CallerOf<R>): IdempotencyKeys<R | IdempotencyRepo> => ({
  guard: (request, route, target) => guardRequest(request, route, target, callerOf)
})
