import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { makeClient } from "../../client/src/Client.ts"

/**
 * The typed client of the service under test (`HttpApiClient.make(Api)`), signed in with `token` when given: the
 * end-to-end suites go through it so that request and response shapes are checked against the contract. A declared
 * error arrives as its typed failure (`Effect.flip` to look at it); `call` in Client.ts stays for what the contract
 * cannot express (raw bodies, media types, headers).
 */
export const api = (app: { readonly url: string }, token?: string) =>
  makeClient(app.url, token).pipe(Effect.provide(FetchHttpClient.layer))

/** Runs a typed-client effect with the fetch HTTP client. */
export const withFetch = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, FetchHttpClient.layer)
