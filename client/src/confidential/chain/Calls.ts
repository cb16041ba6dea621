// The token's state-changing calls as the client builds them for a wallet to sign (mod.rs at 8af46e2c):
// `register(account, auditor_id, data)`, `deposit(from, to, amount)`, `merge(account)`,
// `withdraw(from, to, amount, data)`, `confidential_transfer(from, to, data)`. `data` is the XDR of the operation's
// `<Op>Data { payload, proof }` (storage.rs), a `#[contracttype]` struct: an ScMap with symbol keys in sorted order.
import { Account, Address, Contract, nativeToScVal, rpc, type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { ChainUnavailable } from "./ChainErrors.ts"
import { SimulationRefusedError } from "./ChainReader.ts"
import type { TokenDeployment } from "./Deployment.ts"

/** A `#[contracttype]` struct's ScMap: symbol keys, sorted as the host requires. */
const struct = (fields: Readonly<Record<string, xdr.ScVal>>): xdr.ScVal =>
  xdr.ScVal.scvMap(
    Object.keys(fields).sort().map((key) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(key), val: fields[key]! }))
  )

/** `<Op>Data { payload, proof }` as bytes: every payload field is a `BytesN` (points 64 bytes, fields 32). */
export const encodeData = (payload: Readonly<Record<string, Uint8Array>>, proof: Uint8Array): Uint8Array => {
  const fields = Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, xdr.ScVal.scvBytes(v)]))
  return Uint8Array.from(struct({ payload: struct(fields), proof: xdr.ScVal.scvBytes(proof) }).toXDR())
}

const address = (a: string) => Address.fromString(a).toScVal()
const i128 = (v: bigint) => nativeToScVal(v, { type: "i128" })
// Bytes as they are (the SDK takes a Uint8Array): a browser has no Buffer.
const bytes = (b: Uint8Array) => xdr.ScVal.scvBytes(b)

export type TokenCall =
  | { readonly fn: "register"; readonly account: string; readonly auditorId: number; readonly data: Uint8Array }
  | { readonly fn: "deposit"; readonly from: string; readonly to: string; readonly amount: bigint }
  | { readonly fn: "merge"; readonly account: string }
  | { readonly fn: "withdraw"; readonly from: string; readonly to: string; readonly amount: bigint; readonly data: Uint8Array }
  | { readonly fn: "confidential_transfer"; readonly from: string; readonly to: string; readonly data: Uint8Array }

export const callArguments = (call: TokenCall): Array<xdr.ScVal> => {
  switch (call.fn) {
    case "register": return [address(call.account), xdr.ScVal.scvU32(call.auditorId), bytes(call.data)]
    case "deposit": return [address(call.from), address(call.to), i128(call.amount)]
    case "merge": return [address(call.account)]
    case "withdraw": return [address(call.from), address(call.to), i128(call.amount), bytes(call.data)]
    case "confidential_transfer": return [address(call.from), address(call.to), bytes(call.data)]
  }
}

/**
 * `fn(...args)` on `contract` as a transaction from `source` at `sequence` (the account's current sequence number),
 * simulated and assembled through Stellar RPC (footprint, resources, the source's authorization as source-account
 * credentials): ready for the wallet to sign. A contract refusal in simulation is a SimulationRefusedError.
 */
export const assembleCall = async (
  server: rpc.Server,
  networkPassphrase: string,
  contract: string,
  source: { readonly account: string; readonly sequence: string },
  invocation: { readonly fn: string; readonly args: ReadonlyArray<xdr.ScVal> },
  options: { readonly fee?: string | undefined; readonly timeoutSeconds: number }
): Promise<Transaction> => {
  const tx = new TransactionBuilder(new Account(source.account, source.sequence), { fee: options.fee ?? "1000", networkPassphrase })
    .addOperation(new Contract(contract).call(invocation.fn, ...invocation.args))
    .setTimeout(options.timeoutSeconds)
    .build()
  let simulated: rpc.Api.SimulateTransactionResponse
  try {
    simulated = await server.simulateTransaction(tx)
  } catch (cause) {
    throw new ChainUnavailable({ message: `Stellar RPC could not simulate ${invocation.fn}`, cause })
  }
  if (rpc.Api.isSimulationError(simulated)) throw new SimulationRefusedError(invocation.fn, simulated.error)
  return rpc.assembleTransaction(tx, simulated).build()
}

/**
 * The token call as a transaction from `source`, simulated and assembled (assembleCall). A stale balance refused in
 * simulation is `InvalidProof`, #3506.
 */
export const prepareCall = async (
  server: rpc.Server,
  deployment: TokenDeployment,
  source: { readonly account: string; readonly sequence: string },
  call: TokenCall,
  options: { readonly fee?: string; readonly timeoutSeconds?: number } = {}
): Promise<Transaction> =>
  await assembleCall(server, deployment.networkPassphrase, deployment.contract, source, { fn: call.fn, args: callArguments(call) }, {
    fee: options.fee,
    timeoutSeconds: options.timeoutSeconds ?? 300
  })
