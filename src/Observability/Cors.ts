import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
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
 * CORS for the browser origins in CORS_ORIGINS: an allowed origin is echoed back (never `*` with it), others get no
 * `Access-Control-Allow-Origin`. Sessions are bearer tokens, so credentials (cookies) are never allowed. With no
 * origins configured there is no CORS middleware at all, and only stellar.toml carries `*`.
 */
export const CorsLive = Layer.unwrapEffect(
  Effect.map(CorsConfig, ({ origins }) => {
    if (origins.length === 0) return StellarTomlForAnyOrigin
    const any = origins.includes("*")
    const allowed = new Set(origins)
    const cors = HttpApiBuilder.middlewareCors({
      allowedOrigins: (origin: string | undefined) => typeof origin === "string" && (any || allowed.has(origin)),
      allowedMethods: ["GET", "HEAD", "POST", "PATCH", "DELETE"],
      allowedHeaders: ["authorization", "content-type", "x-request-id"],
      exposedHeaders: ["retry-after", "x-request-id"],
      maxAge: 600,
      credentials: false
    })
    return Layer.merge(StellarTomlForAnyOrigin, cors)
  })
)
