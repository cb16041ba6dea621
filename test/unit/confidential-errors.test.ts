import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { CONFIDENTIAL_CONTRACT_ERRORS, confidentialContractError } from "../../src/Stellar/ConfidentialErrors.ts"

// The `#[contracterror]` enums as OpenZeppelin/stellar-contracts declares them, packages/tokens/src/confidential/:
// auditor/mod.rs `AuditorError`, verifier/mod.rs `VerifierError`, mod.rs `ConfidentialTokenError` (the same at
// 8af46e2c and at 0fd261c2) and compliance/mod.rs `ComplianceError` (3600–3603 at 8af46e2c; 0fd261c2 adds 3604–3606
// with the clawback); `VerifierError` 3403 is declared in packages/confidential/src/verifier/mod.rs at 840bdd82, where
// the token moved to a crate of its own. Copied here by hand, so that a slip in the service's table shows.
const SOURCES: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, number]>]> = [
  ["AuditorError", [["AuditorAlreadyRegistered", 3300], ["AuditorNotRegistered", 3301], ["IdentityPoint", 3302], ["PointNotOnCurve", 3303]]],
  ["VerifierError", [["VerificationKeyAlreadyRegistered", 3400], ["VerificationKeyNotRegistered", 3401], ["InvalidProof", 3402], ["InvalidVerificationKey", 3403]]],
  ["ConfidentialTokenError", [
    ["AccountAlreadyRegistered", 3500], ["AccountNotRegistered", 3501], ["NegativeAmount", 3502], ["DelegationAlreadyExists", 3503],
    ["DelegationNotFound", 3504], ["DelegationExpired", 3505], ["InvalidProof", 3506], ["InvalidData", 3507],
    ["UnderlyingAssetNotSet", 3508], ["VerifierNotSet", 3509], ["AuditorNotSet", 3510], ["AddressAsFieldNotSet", 3511],
    ["AddressAsFieldAlreadySet", 3512], ["UnderlyingAssetAlreadySet", 3513], ["NonCanonicalEncoding", 3514]
  ]],
  ["ComplianceError", [
    ["NotConfigured", 3600], ["AccountFrozen", 3601], ["NotAuthorizedByPolicy", 3602], ["NotAuthorizedBySac", 3603],
    ["AccountNotFrozen", 3604], ["InvalidClawbackAmount", 3605], ["InvalidClawbackDestination", 3606]
  ]]
]

describe("the confidential token's contract errors", () => {
  it("names every code of the four enums as the sources declare it, and no other", () => {
    const expected = SOURCES.flatMap(([enumName, variants]) => variants.map(([name, code]) => ({ code, name, enumName })))
    expect([...CONFIDENTIAL_CONTRACT_ERRORS.values()]).toEqual(expected)
    for (const error of expected) expect(confidentialContractError(error.code)).toEqual(Option.some(error))
  })

  it("an unknown code has no name", () =>
    fc.assert(fc.property(fc.oneof(fc.integer({ min: 3290, max: 3620 }), fc.integer({ min: 0, max: 0xffffffff })), (code) => {
      const known = SOURCES.some(([, variants]) => variants.some(([, n]) => n === code))
      expect(Option.isSome(confidentialContractError(code))).toBe(known)
    }), { numRuns: 2_000 }))
})
