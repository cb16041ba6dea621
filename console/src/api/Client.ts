import { FetchHttpClient } from "@effect/platform"
import { Cause, Effect, Exit, Option } from "effect"
import { type GroupName, makeGroupClient } from "@confidential-payroll/client/contract"
import { ApiError } from "./ApiError.ts"

type GroupClient<G extends GroupName> = Effect.Effect.Success<ReturnType<typeof makeGroupClient<G>>>

/**
 * The typed client of the contract (client/src), as `makeClient` answers it, one group at a time: each group's client
 * is built on its first use (building all of them at once took a good part of the first page's second).
 */
export type PayrollClient = { readonly [G in GroupName]: GroupClient<G> }

const build = <G extends GroupName>(group: G, token: string | undefined): GroupClient<G> =>
  Effect.runSync(
    // For any one group the client needs nothing more (the API's middlewares have no client side), which TypeScript
    // sees for a named group but not through the type parameter.
    makeGroupClient(group, window.location.origin, token).pipe(Effect.provide(FetchHttpClient.layer)) as Effect.Effect<GroupClient<G>>
  )

/** The client acting for `token` (none: signed out); the service answers on the console's own origin (no CORS). */
export const clientFor = (token: string | undefined): PayrollClient => {
  const built = new Map<string, unknown>()
  // A Proxy types as its target: PayrollClient is what each property read answers, one group's client.
  return new Proxy({}, {
    get: (_target, group) => {
      if (typeof group !== "string") return undefined
      if (!built.has(group)) built.set(group, build(group as GroupName, token))
      return built.get(group)
    }
  }) as PayrollClient
}

const describe = (failure: unknown): ApiError => {
  if (typeof failure === "object" && failure !== null) {
    const { _tag: tag, error } = failure as { readonly _tag?: unknown; readonly error?: unknown }
    if (typeof error === "string") return new ApiError(typeof tag === "string" ? tag : "Error", error)
    if (tag === "RequestError") return new ApiError("RequestError", "the service could not be reached: check your connection")
    if (tag === "ResponseError") return new ApiError("ResponseError", "the service gave an answer the console does not understand")
    if (tag === "ParseError") return new ApiError("ParseError", "the service's answer does not match the contract this console was built with: reload the page")
  }
  return new ApiError("Unknown", "something went wrong in the console")
}

/** Runs one typed-client call as a promise (what TanStack Query expects), failing with an `ApiError`. */
export const run = <A, E>(call: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> =>
  Effect.runPromiseExit(call, signal === undefined ? undefined : { signal }).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) throw describe(failure.value)
    if (Cause.isInterruptedOnly(exit.cause)) throw new ApiError("Interrupted", "the request was canceled")
    throw describe(Cause.squash(exit.cause))
  })
