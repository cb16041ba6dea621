// The auditor registry's calls (OpenZeppelin/stellar-contracts 8af46e2c, packages/tokens/src/confidential/auditor):
// `get_key(auditor_id: u32) -> BytesN<64>` (AuditorNotRegistered, #3301, when none), and the operator's
// `register_key(auditor_id: u32, point: BytesN<64>, operator: Address)` and
// `rotate_key(auditor_id: u32, new_point: BytesN<64>, operator: Address)`, which a contract guards with the operator's
// role and `operator.require_auth()` (examples/confidential/auditor: `#[only_role(operator, "manager")]`).
import { Address, rpc, type Transaction, xdr } from "@stellar/stellar-sdk"
import { assembleCall } from "../confidential/chain/Calls.ts"
import { ChainUnavailable } from "../confidential/chain/ChainErrors.ts"
import { simulateRead, SimulationRefusedError } from "../confidential/chain/Simulate.ts"

/** auditor/mod.rs `AuditorError`. */
export const AUDITOR_ERRORS = { 3300: "AuditorAlreadyRegistered", 3301: "AuditorNotRegistered", 3302: "IdentityPoint", 3303: "PointNotOnCurve" } as const

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
const fromHex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16))

/** `get_key(auditor_id)`: the registered point (hex), or undefined when the id has none (#3301). */
export const readAuditorKey = async (
  server: rpc.Server,
  networkPassphrase: string,
  registry: string,
  auditorId: number
): Promise<string | undefined> => {
  try {
    const value = await simulateRead(server, networkPassphrase, registry, "get_key", [xdr.ScVal.scvU32(auditorId)])
    if (value.type !== "scvBytes") throw new ChainUnavailable({ message: "get_key answered no bytes" })
    return hex(value.bytes.toBytes())
  } catch (error) {
    if (error instanceof SimulationRefusedError && error.error.includes("Error(Contract, #3301)")) return undefined
    throw error
  }
}

/** Where the registry stands for the organization's key: what the console shows, and what a payer checks. */
export type RegistryStatus =
  | { readonly status: "registered" }
  | { readonly status: "unregistered" }
  | { readonly status: "other key"; readonly registered: string }

export const registryStatus = async (
  server: rpc.Server,
  networkPassphrase: string,
  registry: string,
  key: { readonly auditorId: number; readonly point: string }
): Promise<RegistryStatus> => {
  const registered = await readAuditorKey(server, networkPassphrase, registry, key.auditorId)
  if (registered === undefined) return { status: "unregistered" }
  return registered === key.point ? { status: "registered" } : { status: "other key", registered }
}

export interface RegistryCall {
  readonly fn: "register_key" | "rotate_key"
  readonly auditorId: number
  /** The (new) point, hex. */
  readonly point: string
  /** The registry operator (G…), who signs. */
  readonly operator: string
}

/**
 * The operator's call as an unsigned transaction from the operator's account at `sequence`, simulated and assembled
 * through Stellar RPC (footprint, resources, the operator's authorization as source-account credentials): the XDR the
 * operator signs. A refusal in simulation (an id in use, #3300; not the operator, #2000) is a SimulationRefusedError.
 */
export const prepareRegistryCall = async (
  server: rpc.Server,
  networkPassphrase: string,
  registry: string,
  sequence: string,
  call: RegistryCall,
  options: { readonly fee?: string; readonly timeoutSeconds?: number } = {}
): Promise<Transaction> => {
  const args = [xdr.ScVal.scvU32(call.auditorId), xdr.ScVal.scvBytes(fromHex(call.point)), Address.fromString(call.operator).toScVal()]
  return await assembleCall(server, networkPassphrase, registry, { account: call.operator, sequence }, { fn: call.fn, args }, {
    fee: options.fee,
    timeoutSeconds: options.timeoutSeconds ?? 3600
  })
}

/** What a transaction named as the operator's call turned out to be. */
export type LandedCall =
  | { readonly landed: true; readonly ledger: number }
  | { readonly landed: false; readonly why: string }

type Envelope = rpc.Api.GetSuccessfulTransactionResponse["envelopeXdr"]

/** Whether the envelope (plain or fee-bumped) is the one operation `call.fn(call.auditorId, call.point, …)` on `registry`. */
const isRegistryCall = (envelope: Envelope, registry: string, call: Omit<RegistryCall, "operator">): boolean => {
  const tx = envelope.type === "envelopeTypeTx"
    ? envelope.v1.tx
    : envelope.type === "envelopeTypeTxFeeBump" ? envelope.feeBump.tx.innerTx.v1.tx : undefined
  const op = tx?.operations.length === 1 ? tx.operations[0] : undefined
  if (op?.body.type !== "invokeHostFunction" || op.body.invokeHostFunctionOp.hostFunction.type !== "hostFunctionTypeInvokeContract") return false
  const { contractAddress, functionName, args } = op.body.invokeHostFunctionOp.hostFunction.invokeContract
  const [id, point] = args
  return Address.fromScAddress(contractAddress).toString() === registry && String(functionName) === call.fn &&
    id?.type === "scvU32" && id.u32 === call.auditorId && point?.type === "scvBytes" && hex(point.bytes.toBytes()) === call.point
}

/**
 * The ledger the operator's call landed in, read by its transaction's hash (`getTransaction`), once it is that call:
 * how a rotation the operator signed elsewhere is recorded (the CLI's `escrow rotate --landed`, the console's page).
 */
export const landedRegistryCall = async (
  server: rpc.Server,
  registry: string,
  hash: string,
  call: Omit<RegistryCall, "operator">
): Promise<LandedCall> => {
  const found = await server.getTransaction(hash)
  if (found.status === rpc.Api.GetTransactionStatus.NOT_FOUND) return { landed: false, why: `Stellar RPC knows no transaction ${hash} (yet)` }
  if (found.status !== rpc.Api.GetTransactionStatus.SUCCESS) return { landed: false, why: `transaction ${hash} failed` }
  if (!isRegistryCall(found.envelopeXdr, registry, call)) return { landed: false, why: `transaction ${hash} is not ${call.fn}(${call.auditorId}, the new point)` }
  return { landed: true, ledger: found.ledger }
}
