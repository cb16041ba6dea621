// The token's deployment as the chain tells it: its contract instance read with getLedgerEntries and decoded by the
// contract's rule (src/Domain/TokenInstance.ts: the underlying asset and both registries in instance storage).
import { Address, Contract, type rpc, xdr } from "@stellar/stellar-sdk"
import { Either } from "effect"
import { decodeTokenInstance, type TokenRegistries } from "../../../../src/Domain/TokenInstance.ts"
import { ChainUnavailable } from "./ChainErrors.ts"
import type { TokenDeployment } from "./Deployment.ts"

/** The token, its registries, the asset a deposit moves, and the network. */
export interface ChainDeployment extends TokenDeployment, TokenRegistries {}

/** The ledger key of `contract`'s instance (what the SDK's `rpc.Server.getContractInstance` asks for). */
export const instanceKey = (contract: string): xdr.LedgerKey =>
  xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({
    contract: new Contract(contract).address().toScAddress(),
    key: xdr.ScVal.scvLedgerKeyContractInstance(),
    durability: xdr.ContractDataDurability.persistent
  }))

/**
 * Reads `contract`'s deployment from its instance storage. Fails with TokenDeploymentInvalid (one line saying what to
 * check: nothing deployed there, not a confidential token, a registry missing) or, when Stellar RPC cannot be read,
 * ChainUnavailable.
 */
export const readDeployment = async (server: rpc.Server, contract: string, networkPassphrase: string): Promise<ChainDeployment> => {
  let entries: ReadonlyArray<rpc.Api.LedgerEntryResult>
  try {
    entries = (await server.getLedgerEntries(instanceKey(contract))).entries
  } catch (cause) {
    throw new ChainUnavailable({ message: `Stellar RPC could not read the contract instance of ${contract}`, cause })
  }
  const registries = decodeTokenInstance(contract, networkPassphrase, entries[0]?.val, (a) => Address.fromScAddress(a).toString())
  if (Either.isLeft(registries)) throw registries.left
  return { contract, networkPassphrase, ...registries.right }
}
