import { DateTime, Effect, Option } from "effect"
import { Contractor, type ContractorStatus } from "../Domain/Contractor.ts"
import { UpstreamUnavailable } from "../Domain/Errors.ts"
import { ConfidentialToken, type Registration } from "../Stellar/ConfidentialToken.ts"
import type { ContractorChanges, ContractorRow } from "./ContractorRepo.ts"

export const toContractor = (row: ContractorRow): Contractor =>
  new Contractor({
    id: row.id,
    name: row.name,
    ...(row.email === null ? {} : { email: row.email }),
    ...(row.address === null ? {} : { address: row.address }),
    ...(row.pvk === null ? {} : { pvk: row.pvk }),
    ...(row.auditorId === null ? {} : { auditorId: row.auditorId }),
    status: row.status,
    ...(row.rateAmount === null ? {} : { rate: { amount: row.rateAmount, currency: "USDC" as const } }),
    createdAt: DateTime.unsafeMake(row.createdAt),
    ...(row.lastPaidAt === null ? {} : { lastPaidAt: DateTime.unsafeMake(row.lastPaidAt) })
  })

/** The columns a registration fills in: the public viewing key and the auditor the account committed to. */
export const registeredColumns = (registered: Option.Option<Registration>): Pick<ContractorChanges, "pvk" | "auditorId"> =>
  Option.match(registered, {
    onNone: () => ({}),
    onSome: (r) => ({ pvk: r.viewingKey, auditorId: r.auditorId })
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
          Effect.tapError((e) => Effect.logWarning("registration check failed").pipe(Effect.annotateLogs({ reason: e.message }))),
          Effect.mapError(() => new UpstreamUnavailable({ error: "could not read the registration from Stellar RPC; retry the check" }))
        )

    /** The registration; a failed read counts as not (yet) registered, so that a record is never lost to it. */
    const lookup = (address: string | null) =>
      read(address).pipe(
        Effect.catchTag("UpstreamUnavailable", () =>
          Effect.logWarning("contractor stays unregistered until re-checked").pipe(Effect.as(Option.none<Registration>())))
      )

    /** The status an active contractor has: ready once registered, else by whether a user claimed it. */
    const statusFor = (registered: Option.Option<Registration>, linked: boolean): ContractorStatus =>
      Option.isSome(registered) ? "ready" : linked ? "onboarding" : "invited"

    return { read, lookup, statusFor } as const
  }),
  dependencies: [ConfidentialToken.Default]
}) {}
