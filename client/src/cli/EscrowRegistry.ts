// The auditor registry's side of the escrow key (issue 36 §2): `register_key` and `rotate_key` are the registry
// operator's to sign. The CLI prepares the call through the service's gateway from the operator's account; when the
// signed-in wallet is the operator it signs it and the service sponsors it (POST /escrow/registry-calls), else the
// unsigned XDR is handed to the operator, who signs and sends it with their own tools.
import type { Keypair } from "@stellar/stellar-sdk"
import { StrKey } from "@stellar/stellar-sdk"
import { Effect, Option } from "effect"
import { SimulationRefusedError } from "../confidential/chain/ChainReader.ts"
import type { RegistryCall } from "../escrow/AuditorRegistry.ts"
import { prepareOperatorCall } from "../payroll/RegistryCall.ts"
import type { ServiceChain } from "../payroll/ServiceChain.ts"
import { escrowPayload } from "../payroll/EscrowContract.ts"
import type { clientOf } from "./Shared.ts"
import { CliFailure, EXIT, usage } from "./Failure.ts"

interface OperatorCall {
  readonly fn: RegistryCall["fn"]
  readonly auditorId: number
  readonly point: string
  readonly operator: string
  readonly xdr: string
}

/** `prepared`: unsigned, for the operator; `submitted`: the signed-in wallet is the operator, and it landed. */
export type OperatorStep = OperatorCall & ({ readonly status: "prepared" } | { readonly status: "submitted"; readonly hash: string })

/** --operator, else the signed-in wallet. */
export const operatorOf = (option: Option.Option<string>, key: Keypair) =>
  Option.match(option, {
    onNone: () => Effect.succeed(key.publicKey()),
    onSome: (operator) => StrKey.isValidEd25519PublicKey(operator) ? Effect.succeed(operator) : Effect.fail(usage(`--operator ${JSON.stringify(operator)} is not a Stellar account (G…)`))
  })

type Client = Effect.Effect.Success<ReturnType<typeof clientOf>>

/** The sponsor takes a transaction valid at most 10 minutes ahead (POST /token/calls' rules). */
const SPONSORED_SECONDS = 300

const UNAUTHORIZED = /Error\(Contract, #2000\)/

/** The operator's call prepared for the operator, or signed and sponsored to the ledger when `key` is the operator's. */
export const operatorStep = (client: Client, chain: ServiceChain, key: Keypair, call: RegistryCall) =>
  Effect.gen(function*() {
    const mine = call.operator === key.publicKey()
    const tx = yield* prepareOperatorCall(chain, call, mine ? SPONSORED_SECONDS : 3600).pipe(
      Effect.catchIf((e) => e instanceof SimulationRefusedError && UNAUTHORIZED.test(e.error), () =>
        Effect.fail(new CliFailure({
          code: EXIT.refused,
          message: `the auditor registry refused ${call.operator} as its operator (#2000): pass --operator with the registry operator's account`
        })))
    )
    if (!mine) return { ...call, status: "prepared", xdr: tx.toXDR() } as OperatorStep
    tx.sign(key)
    const sent = yield* client.escrow.registryCall({ payload: yield* escrowPayload("registryCall", { signedXDR: tx.toXDR() }) })
    return { ...call, status: "submitted", xdr: tx.toXDR(), hash: sent.hash } as OperatorStep
  })

export const operatorLines = (step: OperatorStep): ReadonlyArray<string> => [
  ...(step.status === "submitted"
    ? [`${step.fn}(${step.auditorId}) signed by you, the registry's operator, and on the ledger (transaction ${step.hash}).`]
    : [`${step.fn}(${step.auditorId}) prepared for the registry's operator ${step.operator} to sign and send (valid for an hour):`, step.xdr])
]
