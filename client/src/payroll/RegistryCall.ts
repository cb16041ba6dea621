import { Effect } from "effect"
import { landedRegistryCall, prepareRegistryCall, type RegistryCall } from "../escrow/AuditorRegistry.ts"
import type { ServiceChain } from "./ServiceChain.ts"

/**
 * The registry operator's `register_key` / `rotate_key`, prepared through the service's gateway from the operator's
 * account (its sequence number read there): the unsigned transaction the operator signs, valid `timeoutSeconds`
 * (the service sponsors one valid at most 10 minutes; an operator signing elsewhere may need longer).
 */
export const prepareOperatorCall = (chain: ServiceChain, call: RegistryCall, timeoutSeconds = 3600) =>
  Effect.tryPromise({
    try: async () => {
      const source = await chain.server.getAccount(call.operator)
      return await prepareRegistryCall(chain.server, chain.deployment.networkPassphrase, chain.deployment.auditorRegistry, source.sequenceNumber(), call, { timeoutSeconds })
    },
    catch: (e) => e
  }).pipe(Effect.withSpan("Payroll.prepareOperatorCall", { attributes: { fn: call.fn } }))

/** The ledger the operator's call landed in, read by its transaction's hash through the gateway (`getTransaction`). */
export const landedCall = (chain: ServiceChain, hash: string, call: Omit<RegistryCall, "operator">) =>
  Effect.tryPromise({
    try: () => landedRegistryCall(chain.server, chain.deployment.auditorRegistry, hash, call),
    catch: (e) => e
  })
