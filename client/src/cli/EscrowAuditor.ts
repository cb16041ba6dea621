import { Effect } from "effect"
import { registryStatus } from "../escrow/AuditorRegistry.ts"
import { serviceChain } from "../payroll/ServiceChain.ts"
import { CliFailure, EXIT } from "./Failure.ts"
import { clientOf, type Signed } from "./Shared.ts"

/**
 * The auditor id a paying wallet registers under: the organization's escrow key's, once it has one (the sponsor
 * refuses any other), and only once the auditor registry holds that key; else undefined (the deployment's).
 */
export const escrowAuditorId = (signed: Signed) =>
  Effect.gen(function*() {
    const client = yield* clientOf(signed)
    const { keys } = yield* client.escrow.list()
    const current = keys.find((k) => k.current)
    if (current === undefined) return undefined
    const chain = yield* serviceChain(signed.baseUrl, signed.token)
    const registry = yield* Effect.tryPromise({
      try: () => registryStatus(chain.server, chain.deployment.networkPassphrase, chain.deployment.auditorRegistry, { auditorId: current.auditorId, point: current.point }),
      catch: (e) => e
    })
    if (registry.status !== "registered") {
      return yield* new CliFailure({
        code: EXIT.refused,
        message: `the organization's escrow key is not in the auditor registry under auditor id ${current.auditorId} yet: its operator registers it first (payroll escrow status)`
      })
    }
    return current.auditorId
  })
