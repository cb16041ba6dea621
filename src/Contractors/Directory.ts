import { Effect, Option } from "effect"
import type { ContractorStatus } from "../Domain/Contractor.ts"
import { UpstreamUnavailable } from "../Domain/Errors.ts"
import { ConfidentialToken, type Registration } from "../Stellar/ConfidentialToken.ts"

/** The columns a registration fills in: the public viewing key and the auditor the account committed to. */
export const registeredColumns = (
  registered: Option.Option<Registration>
): { readonly pvk?: Option.Option<string>; readonly auditorId?: Option.Option<number> } =>
  Option.match(registered, {
    onNone: () => ({}),
    onSome: (r) => ({ pvk: Option.some(r.viewingKey), auditorId: Option.some(r.auditorId) })
  })

/** What the chain says of an address: registered with the confidential token, or not (yet). */
export class Registrations extends Effect.Service<Registrations>()("Contractors/Registrations", {
  effect: Effect.gen(function*() {
    const token = yield* ConfidentialToken

    /** The registration, or an upstream error when the chain could not say (POST /contractors/{id}/check). */
    const read = (address: string | null) =>
      address === null
        ? Effect.succeed(Option.none<Registration>())
        : token.registration(address).pipe(
          Effect.tapError((e) =>
            Effect.logWarning("registration check failed; the contractor stays unregistered until re-checked").pipe(
              Effect.annotateLogs({ reason: e.message })
            )
          ),
          Effect.mapError(() => new UpstreamUnavailable({ error: "could not read the registration from Stellar RPC; retry the check" }))
        )

    /** The registration; a failed read counts as not (yet) registered, so that a record is never lost to it. */
    const lookup = (address: string | null) =>
      read(address).pipe(Effect.catchTag("UpstreamUnavailable", () => Effect.succeed(Option.none<Registration>())))

    /** The status an active contractor has: ready once registered, else by whether a user claimed it. */
    const statusFor = (registered: Option.Option<Registration>, linked: boolean): ContractorStatus =>
      Option.isSome(registered) ? "ready" : linked ? "onboarding" : "invited"

    return { read, lookup, statusFor } as const
  }),
  dependencies: [ConfidentialToken.Default]
}) {}
