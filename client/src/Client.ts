import { type HttpApi, HttpApiClient, type HttpApiGroup, HttpClient, type HttpClientResponse, HttpClientRequest } from "@effect/platform"
import { Data, Duration, Effect, Schedule } from "effect"
import { Api } from "../../src/Api.ts"

/** A 503 (the service's database is away) or a 429 (a rate limit): the same request may be sent again later. */
class Busy extends Data.TaggedError("Busy")<{ readonly response: HttpClientResponse.HttpClientResponse; readonly wait: Duration.Duration }> {}

/** One retry the client is about to make: the status that caused it and how long it waits first. */
export interface BusyRetry {
  readonly status: number
  readonly wait: Duration.Duration
  readonly attempt: number
}

export interface RetryBusy {
  /** How many times one request is sent again (default 20). */
  readonly times?: number
  /** The longest wait honoured from a `Retry-After` (default 60 s); without the header, 1 s doubling up to it. */
  readonly maxWait?: Duration.DurationInput
  readonly onRetry?: (retry: BusyRetry) => void
}

/** `Retry-After` in seconds (the service sends seconds; an HTTP date is honoured too). */
const retryAfter = (response: HttpClientResponse.HttpClientResponse): Duration.Duration | undefined => {
  const value = response.headers["retry-after"]
  if (value === undefined) return undefined
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : (Date.parse(value) - Date.now()) / 1000
  return Number.isFinite(seconds) ? Duration.millis(Math.max(0, seconds * 1000)) : undefined
}

/**
 * Sends a request again while the service answers 503 or 429, waiting what `Retry-After` asks (bounded); the last
 * answer, if still busy, goes on to be decoded as the typed `ServiceUnavailable` or `RateLimited`.
 */
const retryingBusy = (options: RetryBusy) => (client: HttpClient.HttpClient) => {
  const maxWait = Duration.decode(options.maxWait ?? Duration.seconds(60))
  return HttpClient.transformResponse(client, (send) => {
    let attempt = 0
    return send.pipe(
      Effect.flatMap((response) => {
        if (response.status !== 503 && response.status !== 429) return Effect.succeed(response)
        const asked = retryAfter(response) ?? Duration.millis(1000 * 2 ** Math.min(attempt, 6))
        return Effect.fail(new Busy({ response, wait: Duration.min(asked, maxWait) }))
      }),
      Effect.retry({
        while: (e) => e instanceof Busy,
        schedule: Schedule.identity<unknown>().pipe(
          Schedule.addDelay((e) => (e instanceof Busy ? e.wait : Duration.zero)),
          Schedule.tapInput((e) =>
            Effect.sync(() => {
              attempt += 1
              if (e instanceof Busy) options.onRetry?.({ status: e.response.status, wait: e.wait, attempt })
            })
          ),
          Schedule.intersect(Schedule.recurs(options.times ?? 20))
        )
      }),
      Effect.catchIf((e): e is Busy => e instanceof Busy, (e) => Effect.succeed(e.response))
    )
  })
}

export interface ClientOptions {
  readonly retryBusy?: RetryBusy
  /** Headers every request carries, e.g. an `Idempotency-Key` for a client made for one creating call. */
  readonly headers?: Readonly<Record<string, string>>
}

/** The bearer, the headers and the retries of `options`, on every request of `client`. */
const transformed = (client: HttpClient.HttpClient, token: string | undefined, options: ClientOptions) => {
  const authorized = token === undefined ? client : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(token))
  const headed = options.headers === undefined
    ? authorized
    : HttpClient.mapRequest(authorized, HttpClientRequest.setHeaders(options.headers))
  return options.retryBusy === undefined ? headed : retryingBusy(options.retryBusy)(headed)
}

/**
 * Typed client of the whole API; provide an `HttpClient` (e.g. `FetchHttpClient.layer`). With a session token every
 * request carries it as the bearer. With `retryBusy`, answers 503 and 429 are retried after their `Retry-After`: give
 * a creating call an `Idempotency-Key` (`headers`) so that a retry after an answer that was lost replays it.
 */
export const makeClient = (baseUrl: string, token?: string, options: ClientOptions = {}) =>
  HttpApiClient.make(Api, { baseUrl, transformClient: (client) => transformed(client, token, options) })

type ApiGroups = typeof Api extends HttpApi.HttpApi<string, infer Groups, infer _E, infer _R> ? Groups : never

/** The name of a group of the API (`batches`, `audit`, …), as `makeClient`'s answer names its parts. */
export type GroupName = HttpApiGroup.HttpApiGroup.Name<ApiGroups>

/**
 * The typed client of one group of the API, with `makeClient`'s options: building it walks that group's endpoints
 * only, where `makeClient` walks all of them (a browser page that uses a few groups builds only those).
 */
export const makeGroupClient = <const Group extends GroupName>(group: Group, baseUrl: string, token?: string, options: ClientOptions = {}) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    HttpApiClient.group(Api, { group, baseUrl, httpClient: transformed(client, token, options) }))
