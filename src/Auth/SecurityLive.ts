import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { ClientAddressConfig } from "../Config.ts"
import { Forbidden, Unauthorized } from "../Domain/Errors.ts"
import type { Session } from "../Domain/Session.ts"
import { clientAddress, TrustedProxies } from "../Http/ClientAddress.ts"
import { ApiKeys, isApiKey } from "./ApiKeys.ts"
import { allows } from "./Scopes.ts"
import { Authentication } from "./Security.ts"
import { SessionVerifier } from "./SessionVerifier.ts"

/**
 * Bearer tokens: a `cpk_` one is an API key (looked up in PostgreSQL on every request, then held to its scopes for
 * the route being served, `Scopes.ts`), any other a session JWT through whichever SessionVerifier the composition
 * root provides. The framework tries the schemes in turn and answers the last one's failure, so the second scheme
 * decides every token and the first one only takes sessions early.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const sessions = yield* SessionVerifier
    const keys = yield* ApiKeys
    const trusted = new TrustedProxies((yield* ClientAddressConfig).trustedProxies)
    /** A key narrowed to networks is refused from anywhere else, the client found as the sign-in limit finds it. */
    const fromAllowedNetwork = (verified: { readonly session: Session; readonly allowedCidrs: ReadonlyArray<string> }) =>
      verified.allowedCidrs.length === 0 ? Effect.succeed(verified.session) : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const address = clientAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trusted)
        return address !== "unknown" && new TrustedProxies(verified.allowedCidrs).has(address)
          ? Effect.succeed(verified.session)
          : Effect.fail(new Forbidden({ error: "this API key may not be used from this network" }))
      })
    const withinScopes = (session: Session) =>
      Effect.flatMap(Effect.serviceOption(HttpRouter.RouteContext), (context) => {
        const scopes = session.apiKey?.scopes ?? []
        return Option.isSome(context) && allows(scopes, context.value.route.method, context.value.route.path)
          ? Effect.succeed(session)
          : Effect.fail(new Forbidden({ error: "this API key's scopes do not allow this operation" }))
      })
    const anyBearer = (token: string) =>
      isApiKey(token)
        ? keys.verify(token).pipe(Effect.flatMap(fromAllowedNetwork), Effect.flatMap(withinScopes))
        : sessions.verify(token)
    return Authentication.of({
      bearer: (token) => {
        const value = Redacted.value(token)
        return isApiKey(value) ? Effect.fail(new Unauthorized({ error: "not a session token" })) : sessions.verify(value)
      },
      apiKey: (token) => anyBearer(Redacted.value(token))
    })
  })
)
