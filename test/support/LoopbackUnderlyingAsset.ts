// The confidential token's underlying asset on the loopback: a Stellar Asset Contract's SEP-41 reads
// (soroban-env-host builtin_contracts/stellar_asset_contract/contract.rs: `balance(id) -> i128`, `decimals() -> u32`,
// always 7, `name() -> String`, "CODE:ISSUER", `symbol() -> String`, the asset's code), over the balances the token
// emulation keeps (deposits draw on them, withdrawals credit them). Trustlines are not modelled: an account the
// asset never credited holds 0, where a real SAC fails with TrustlineMissingError (#13).
import { Address, nativeToScVal, xdr } from "@stellar/stellar-sdk"
import type { ContractHandler } from "./LoopbackTypes.ts"
import { argumentCountMismatch, argumentTypeMismatch } from "./LoopbackXdr.ts"

/** The asset the loopback's token wraps: USDC, as on testnet (Circle's issuer there). */
export const UNDERLYING_CODE = "USDC"
const UNDERLYING_ISSUER = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"

export const underlyingAssetFunctions = (
  assetId: string,
  balanceOf: (address: string, asOf: number) => bigint
): ReadonlyMap<string, ContractHandler> => {
  const noArguments = (value: () => xdr.ScVal): ContractHandler => (args, ctx) => {
    if (args.length !== 0) throw argumentCountMismatch(assetId, ctx.fn)
    return value()
  }
  return new Map<string, ContractHandler>([
    ["balance", (args, ctx) => {
      if (args.length !== 1) throw argumentCountMismatch(assetId, ctx.fn)
      if (args[0]?.type !== "scvAddress") throw argumentTypeMismatch(assetId, ctx.fn)
      return nativeToScVal(balanceOf(Address.fromScVal(args[0]).toString(), ctx.asOf), { type: "i128" })
    }],
    ["decimals", noArguments(() => xdr.ScVal.scvU32(7))],
    ["name", noArguments(() => xdr.ScVal.scvString(`${UNDERLYING_CODE}:${UNDERLYING_ISSUER}`))],
    ["symbol", noArguments(() => xdr.ScVal.scvString(UNDERLYING_CODE))]
  ])
}
