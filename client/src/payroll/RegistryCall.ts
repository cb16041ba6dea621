import { Address, type FeeBumpTransaction, rpc, type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { prepareRegistryCall, type RegistryCall } from "../escrow/AuditorRegistry.ts"
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

/** What a transaction named as the operator's call turned out to be. */
export type LandedCall =
  | { readonly landed: true; readonly ledger: number }
  | { readonly landed: false; readonly why: string }

const isCall = (tx: Transaction | FeeBumpTransaction, registry: string, call: Omit<RegistryCall, "operator">): boolean => {
  const inner = "innerTransaction" in tx ? tx.innerTransaction : tx
  const op = inner.operations[0]
  if (inner.operations.length !== 1 || op?.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") return false
  const { contractAddress, functionName, args } = op.func.invokeContract
  const same = (a: xdr.ScVal | undefined, b: xdr.ScVal) => a !== undefined && a.toXDR("base64") === b.toXDR("base64")
  return Address.fromScAddress(contractAddress).toString() === registry && functionName.toString() === call.fn &&
    same(args[0], xdr.ScVal.scvU32(call.auditorId)) && same(args[1], xdr.ScVal.scvBytes(Buffer.from(call.point, "hex")))
}

/** The ledger the operator's call landed in, read by its transaction's hash through the gateway (`getTransaction`). */
export const landedCall = (chain: ServiceChain, hash: string, call: Omit<RegistryCall, "operator">) =>
  Effect.tryPromise({
    try: async (): Promise<LandedCall> => {
      const found = await chain.server.getTransaction(hash)
      if (found.status === rpc.Api.GetTransactionStatus.NOT_FOUND) return { landed: false, why: `Stellar RPC knows no transaction ${hash} (yet)` }
      if (found.status !== rpc.Api.GetTransactionStatus.SUCCESS) return { landed: false, why: `transaction ${hash} failed` }
      const tx = TransactionBuilder.fromXDR(found.envelopeXdr, chain.deployment.networkPassphrase)
      if (!isCall(tx, chain.deployment.auditorRegistry, call)) return { landed: false, why: `transaction ${hash} is not ${call.fn}(${call.auditorId}, the new point)` }
      return { landed: true, ledger: found.ledger }
    },
    catch: (e) => e
  })
