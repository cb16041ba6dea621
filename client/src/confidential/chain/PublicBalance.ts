// The public balance a deposit draws on: the underlying asset's SEP-41 `balance(id) -> i128` and `symbol() -> String`,
// read by simulation. On a Stellar Asset Contract an account's balance is its trustline's; without one the contract
// fails with ContractError::TrustlineMissingError, #13 (soroban-env-host
// builtin_contracts/stellar_asset_contract/balance.rs `read_balance`, contract_error.rs).
import { Address, type rpc, scValToNative } from "@stellar/stellar-sdk"
import { ChainUnavailable } from "./ChainErrors.ts"
import { simulateRead, SimulationRefusedError } from "./Simulate.ts"

export interface PublicBalance {
  /** The asset's symbol (a SAC's is its code: "USDC"). */
  readonly symbol: string
  /** In the asset's units; undefined when the account has no trustline to the asset. */
  readonly amount: bigint | undefined
}

const TRUSTLINE_MISSING = /Error\(Contract, #13\)/

/** `account`'s balance of the SEP-41 `asset`, and the asset's symbol. */
export const readPublicBalance = async (
  server: rpc.Server,
  networkPassphrase: string,
  asset: string,
  account: string
): Promise<PublicBalance> => {
  const [symbol, amount] = await Promise.all([
    simulateRead(server, networkPassphrase, asset, "symbol", []).then((value) => {
      const text: unknown = value.type === "scvString" ? scValToNative(value) : undefined
      if (typeof text !== "string") throw new ChainUnavailable({ message: `the symbol of ${asset} is not a string` })
      return text
    }),
    simulateRead(server, networkPassphrase, asset, "balance", [Address.fromString(account).toScVal()]).then(
      (value) => {
        if (value.type !== "scvI128") throw new ChainUnavailable({ message: `the balance ${asset} gave is not an i128` })
        return BigInt(scValToNative(value) as bigint)
      },
      (e: unknown) => {
        if (e instanceof SimulationRefusedError && TRUSTLINE_MISSING.test(e.error)) return undefined
        throw e
      }
    )
  ])
  return { symbol, amount }
}
