import { HttpApiClient } from "@effect/platform"
import { Api } from "./Api.ts"

/** Typed client of the whole API; provide an `HttpClient` (e.g. `FetchHttpClient.layer`). */
export const makeClient = (baseUrl: string) => HttpApiClient.make(Api, { baseUrl })
