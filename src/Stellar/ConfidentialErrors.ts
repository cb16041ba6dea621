import { Option } from "effect"

/**
 * The contract errors a call to OpenZeppelin's confidential token can fail with, `Error(Contract, #N)`: its own and
 * those of the contracts it calls, which a failed cross-contract call passes up unchanged. Mirrored from
 * OpenZeppelin/stellar-contracts, packages/tokens/src/confidential/ — at 8af46e2c and at 0fd261c2, whose numbers
 * agree where both declare them:
 * - auditor/mod.rs `AuditorError` 3300–3303 (the auditor key registry, `get_key`);
 * - verifier/mod.rs `VerifierError` 3400–3403 (the UltraHonk verification key registry, `verify_proof`): 3403
 *   `InvalidVerificationKey` came when the verifier started checking proofs, after the token moved to its own crate
 *   (packages/confidential/src/verifier/mod.rs at 840bdd82ebec78c8aed01fbdb0c6b88e914052be);
 * - mod.rs `ConfidentialTokenError` 3500–3514;
 * - compliance/mod.rs `ComplianceError` 3600–3606 (the optional compliance extension: 3604–3606 came with its
 *   clawback, PRs #855 and #872).
 */
export type ConfidentialErrorEnum = "AuditorError" | "VerifierError" | "ConfidentialTokenError" | "ComplianceError"

export interface ConfidentialContractError {
  readonly code: number
  /** The variant's name in its Rust enum, e.g. `AccountFrozen`. */
  readonly name: string
  readonly enumName: ConfidentialErrorEnum
}

const RANGES: ReadonlyArray<readonly [ConfidentialErrorEnum, number, ReadonlyArray<string>]> = [
  ["AuditorError", 3300, ["AuditorAlreadyRegistered", "AuditorNotRegistered", "IdentityPoint", "PointNotOnCurve"]],
  ["VerifierError", 3400, ["VerificationKeyAlreadyRegistered", "VerificationKeyNotRegistered", "InvalidProof", "InvalidVerificationKey"]],
  ["ConfidentialTokenError", 3500, [
    "AccountAlreadyRegistered", "AccountNotRegistered", "NegativeAmount", "DelegationAlreadyExists", "DelegationNotFound",
    "DelegationExpired", "InvalidProof", "InvalidData", "UnderlyingAssetNotSet", "VerifierNotSet", "AuditorNotSet",
    "AddressAsFieldNotSet", "AddressAsFieldAlreadySet", "UnderlyingAssetAlreadySet", "NonCanonicalEncoding"
  ]],
  ["ComplianceError", 3600, [
    "NotConfigured", "AccountFrozen", "NotAuthorizedByPolicy", "NotAuthorizedBySac", "AccountNotFrozen",
    "InvalidClawbackAmount", "InvalidClawbackDestination"
  ]]
]

/** Every error above by its code. */
export const CONFIDENTIAL_CONTRACT_ERRORS: ReadonlyMap<number, ConfidentialContractError> = new Map(
  RANGES.flatMap(([enumName, first, names]) => names.map((name, i) => [first + i, { code: first + i, name, enumName }] as const))
)

/** What a code means, when it is one of the confidential token's (or its registries', or its compliance extension's). */
export const confidentialContractError = (code: number): Option.Option<ConfidentialContractError> =>
  Option.fromNullable(CONFIDENTIAL_CONTRACT_ERRORS.get(code))

/** Who refused, in words: the contract each enum belongs to. */
export const refuserOf = (enumName: ConfidentialErrorEnum): string => {
  switch (enumName) {
    case "AuditorError":
      return "the confidential token's auditor registry"
    case "VerifierError":
      return "the confidential token's proof verifier"
    case "ConfidentialTokenError":
      return "the confidential token"
    case "ComplianceError":
      return "the confidential token's compliance controls"
  }
}
