import { HttpServerResponse } from "@effect/platform"
import { REQUEST_ID_HEADER } from "./RequestId.ts"

/**
 * On every answer: the request id, and no MIME sniffing. Nothing a session can see, and no error, is kept by a
 * browser or shared cache.
 */
export const withSecurityHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  request: { readonly requestId: string; readonly authenticated: boolean }
) =>
  HttpServerResponse.setHeaders(response, {
    [REQUEST_ID_HEADER]: request.requestId,
    "x-content-type-options": "nosniff",
    ...(request.authenticated || response.status >= 400 ? { "cache-control": "no-store" } : {})
  })
