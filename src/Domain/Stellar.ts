import { StrKey } from "@stellar/stellar-sdk"
import { Schema } from "effect"

/** A Stellar account (G...), checksum verified. */
export const AccountId = Schema.String.pipe(
  Schema.filter((s) => StrKey.isValidEd25519PublicKey(s), {
    message: () => "must be a Stellar account address (G...)"
  }),
  Schema.brand("AccountId")
)
export type AccountId = typeof AccountId.Type

/** A Soroban contract (C...), checksum verified. */
export const ContractId = Schema.String.pipe(
  Schema.filter((s) => StrKey.isValidContract(s), {
    message: () => "must be a Stellar contract address (C...)"
  }),
  Schema.brand("ContractId")
)
export type ContractId = typeof ContractId.Type

/** Anything that can receive a payout: an account or a contract. */
export const StellarAddress = Schema.String.pipe(
  Schema.filter((s) => StrKey.isValidEd25519PublicKey(s) || StrKey.isValidContract(s), {
    message: () => "must be a Stellar address (G... account or C... contract)"
  }),
  Schema.brand("StellarAddress")
)
export type StellarAddress = typeof StellarAddress.Type

export const isStellarAddress = Schema.is(StellarAddress)
