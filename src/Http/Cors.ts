import { HttpApiBuilder, type HttpApp, HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CorsConfig } from "../Config.ts"

/**
 * Routes every origin may call, whatever CORS_ORIGINS says, with the methods each answers: stellar.toml (SEP-1) and
 * SEP-10's endpoints, which must send `Access-Control-Allow-Origin: *` on every answer, errors included, and answer
 * preflights (SEP-10 "Cross-Origin Headers").
 */
const ANY_ORIGIN_ROUTES: Readonly<Record<string, string>> = {
  "/.well-known/stellar.toml": "GET, HEAD",
  "/auth": "GET, POST",
  "/auth/sep10/challenge": "GET",
  "/auth/sep10/verify": "POST"
}

const EXPOSED = "retry-after, ratelimit, ratelimit-policy, x-request-id, idempotent-replayed"
const ALLOWED_HEADERS = ["authorization", "content-type", "x-request-id", "idempotency-key"]

/** A request target's path as a URL parser reads it; a plain `/path?query` without building a URL (every request). */
const pathOf = (url: string) => {
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  if (path.startsWith("/") && !path.startsWith("//") && !/[%#\\]|\/\./.test(path)) return path
  try {
    return new URL(url, "http://localhost").pathname
  } catch {
    return undefined
  }
}

/** The methods of the any-origin route a request target (origin or absolute form) names, if it names one. */
const anyOriginMethods = (url: string) => {
  const path = pathOf(url)
  return path !== undefined && Object.hasOwn(ANY_ORIGIN_ROUTES, path) ? ANY_ORIGIN_ROUTES[path] : undefined
}

const anyOrigin = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": EXPOSED
  })

/**
 * The request headers a preflight asks for, as field-name tokens: these routes need no credentials and answer `*`,
 * so a wallet SDK's own headers (`X-Client-Name`, ...) are allowed rather than failing the preflight.
 */
const requestedHeaders = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["access-control-request-headers"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => /^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name))

const preflight = (request: HttpServerRequest.HttpServerRequest, methods: string) =>
  HttpServerResponse.empty({ status: 204 }).pipe(
    anyOrigin,
    HttpServerResponse.setHeaders({
      "access-control-allow-methods": `${methods}, OPTIONS`,
      "access-control-allow-headers": [...new Set([...ALLOWED_HEADERS, ...requestedHeaders(request)])].join(", "),
      "access-control-max-age": "600",
      "vary": "access-control-request-headers"
    })
  )

/**
 * `Access-Control-Allow-Origin: *` on an answer to an any-origin route, whoever made it: the server middleware puts
 * it on every answer it finishes, the app's and its own alike.
 */
export const withAnyOrigin = (url: string, response: HttpServerResponse.HttpServerResponse) =>
  anyOriginMethods(url) === undefined ? response : anyOrigin(response)

/** An any-origin route's preflight is answered here; its other requests skip the CORS_ORIGINS middleware. */
const anyOriginRoutes = (configured: (app: HttpApp.Default) => HttpApp.Default) =>
  HttpApiBuilder.middleware((app) => {
    const withConfigured = configured(app)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const methods = anyOriginMethods(request.url)
      if (methods === undefined) return withConfigured
      return request.method === "OPTIONS" ? Effect.succeed(preflight(request, methods)) : app
    })
  })

/**
 * CORS for the browser origins in CORS_ORIGINS: an allowed origin is echoed back, others get no
 * `Access-Control-Allow-Origin`; with `*` every origin is answered `*`. The origin `null` (sandboxed frames, `file:`
 * pages, some redirects: anyone can send it) is never allowed, `*` included (CORS_ORIGINS refuses to list it). Sessions
 * are bearer tokens, so credentials (cookies) are never allowed. With no origins configured only the any-origin
 * routes carry CORS headers.
 */
export const CorsLive = Layer.unwrapEffect(
  Effect.map(CorsConfig, ({ origins }) => {
    if (origins.length === 0) return anyOriginRoutes((app) => app)
    const allowed = new Set(origins)
    const cors = HttpMiddleware.cors({
      // A one-entry list is sent as it is, with `Vary: Origin` (`null` is answered otherwise); a predicate echoes.
      allowedOrigins: allowed.has("*") ? ["*"] : (origin: string) => allowed.has(origin),
      allowedMethods: ["GET", "HEAD", "POST", "PATCH", "DELETE"],
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED.split(", "),
      maxAge: 600,
      credentials: false
    })
    return anyOriginRoutes((app) => {
      const withCors = cors(app)
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        request.headers.origin === "null" ? app : withCors)
    })
  })
)
