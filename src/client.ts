import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Api } from "./Api.ts"

/**
 * Typed client of the whole API; provide an `HttpClient` (e.g. `FetchHttpClient.layer`).
 * With a session token every request carries it as the bearer.
 */
export const makeClient = (baseUrl: string, token?: string) =>
  HttpApiClient.make(Api, {
    baseUrl,
    ...(token === undefined ? {} : {
      transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(token))
    })
  })
