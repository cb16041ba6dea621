import { DateTime, Effect, Option } from "effect"
import { Contractor, type ContractorStatus } from "../Domain/Contractor.ts"
import { ConfidentialToken } from "../Stellar/ConfidentialToken.ts"
import type { ContractorRow } from "./ContractorRepo.ts"

export const toContractor = (row: ContractorRow): Contractor =>
  new Contractor({
    id: row.id,
    name: row.name,
    ...(row.email === null ? {} : { email: row.email }),
    ...(row.address === null ? {} : { address: row.address }),
    ...(row.pvk === null ? {} : { pvk: row.pvk }),
    status: row.status,
    ...(row.rateAmount === null ? {} : { rate: { amount: row.rateAmount, currency: "USDC" as const } }),
    createdAt: DateTime.unsafeMake(row.createdAt),
    ...(row.lastPaidAt === null ? {} : { lastPaidAt: DateTime.unsafeMake(row.lastPaidAt) })
  })

/** What the chain says of an address: its registered key, or none; an RPC failure counts as not (yet) known. */
export class Registrations extends Effect.Service<Registrations>()("Contractors/Registrations", {
  effect: Effect.gen(function*() {
    const token = yield* ConfidentialToken

    const lookup = (address: string | null) =>
      address === null
        ? Effect.succeed(Option.none<string>())
        : token.registeredKey(address).pipe(
          Effect.catchTag("RpcError", (e) =>
            Effect.logWarning("registration check failed; contractor stays unregistered until re-checked").pipe(
              Effect.annotateLogs({ method: e.method, reason: e.message }),
              Effect.as(Option.none<string>())
            ))
        )

    /** The status an active contractor has: ready once registered, else by whether a user claimed it. */
    const statusFor = (registered: Option.Option<string>, linked: boolean): ContractorStatus =>
      Option.isSome(registered) ? "ready" : linked ? "onboarding" : "invited"

    return { lookup, statusFor } as const
  }),
  dependencies: [ConfidentialToken.Default]
}) {}
