// The one proving failure ../Errors.ts does not name yet: a CRS that is there but may not be used. Kept here until it
// moves into Errors.ts beside CrsMissing.
import { Data } from "effect"

/** A CRS that failed its check (hash pin, pairing, curve), or a test CRS offered for a public network's verifier. */
export class CrsRefused extends Data.TaggedError("CrsRefused")<{
  readonly reason: "Malformed" | "PairingFailed" | "TestCrsOnPublicNetwork" | "MixedFiles"
  readonly message: string
}> {}
