import { Contract, rpc, TransactionBuilder, type xdr } from "@stellar/stellar-sdk"
import { ChainUnavailable } from "./ChainErrors.ts"

/** Any account will do as a simulation's source: nothing is signed or sent. */
const SIMULATION_SOURCE = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"

/** A simulation the contract refused: its error text (with `Error(Contract, #N)`). */
export class SimulationRefusedError extends Error {
  readonly error: string
  constructor(fn: string, error: string) {
    super(`the simulation of ${fn} failed: ${error.split("\n")[0] ?? ""}`)
    this.error = error
  }
}

/** A read-only call of `fn` on `contract`, simulated through Stellar RPC: its return value. */
export const simulateRead = async (
  server: rpc.Server,
  networkPassphrase: string,
  contract: string,
  fn: string,
  args: ReadonlyArray<xdr.ScVal>
): Promise<xdr.ScVal> => {
  const tx = new TransactionBuilder(
    { accountId: () => SIMULATION_SOURCE, sequenceNumber: () => "0", incrementSequenceNumber: () => {} },
    { fee: "100", networkPassphrase }
  ).addOperation(new Contract(contract).call(fn, ...args)).setTimeout(30).build()
  let result: rpc.Api.SimulateTransactionResponse
  try {
    result = await server.simulateTransaction(tx)
  } catch (cause) {
    throw new ChainUnavailable({ message: `Stellar RPC could not simulate ${fn}`, cause })
  }
  if (rpc.Api.isSimulationError(result)) throw new SimulationRefusedError(fn, result.error)
  if (!rpc.Api.isSimulationSuccess(result) || result.result === undefined) {
    throw new ChainUnavailable({ message: `the simulation of ${fn} returned no value` })
  }
  return result.result.retval
}
