import { HttpApiBuilder, HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CorsConfig } from "../Config.ts"

const STELLAR_TOML = "/.well-known/stellar.toml"

/** SEP-1: wallets read stellar.toml from any origin, whatever CORS_ORIGINS says. */
const StellarTomlForAnyOrigin = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.url.split("?")[0] === STELLAR_TOML
      ? Effect.map(app, HttpServerResponse.setHeader("access-control-allow-origin", "*"))
      : app)
)

/**
 * CORS for the browser origins in CORS_ORIGINS: an allowed origin is echoed back, others get no
 * `Access-Control-Allow-Origin`; with `*` every origin is answered `*`. The origin `null` (sandboxed frames, `file:`
 * pages, some redirects: anyone can send it) is never allowed, `*` included (CORS_ORIGINS refuses to list it). Sessions
 * are bearer tokens, so credentials (cookies) are never allowed. With no origins configured there is no CORS
 * middleware at all, and only stellar.toml carries `*`.
 */
export const CorsLive = Layer.unwrapEffect(
  Effect.map(CorsConfig, ({ origins }) => {
    if (origins.length === 0) return StellarTomlForAnyOrigin
    const allowed = new Set(origins)
    const cors = HttpMiddleware.cors({
      // A one-entry list is sent as it is, with `Vary: Origin` (`null` is answered otherwise); a predicate echoes.
      allowedOrigins: allowed.has("*") ? ["*"] : (origin: string) => allowed.has(origin),
      allowedMethods: ["GET", "HEAD", "POST", "PATCH", "DELETE"],
      allowedHeaders: ["authorization", "content-type", "x-request-id"],
      exposedHeaders: ["retry-after", "x-request-id"],
      maxAge: 600,
      credentials: false
    })
    const NotForNull = HttpApiBuilder.middleware((app) => {
      const withCors = cors(app)
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        request.headers.origin === "null" ? app : withCors)
    })
    return Layer.merge(StellarTomlForAnyOrigin, NotForNull)
  })
)
