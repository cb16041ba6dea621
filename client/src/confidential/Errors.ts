// Typed failures of the confidential client (OZ SDK.md §9.4, §12.2). Each extends Error (`Data.TaggedError`), so a
// Promise caller can switch on `_tag`. A `message` names what failed, never a secret: no key, opening, amount or root.
import { Data } from "effect"

/** The prover could not produce a proof for the witness (or the proof did not verify locally). */
export class ProofFailed extends Data.TaggedError("ProofFailed")<{
  readonly circuit: string
  readonly message: string
}> {}

/** The local opening no longer matches the on-chain commitment: re-sync before proving (SDK.md §10.6). */
export class StateMismatch extends Data.TaggedError("StateMismatch")<{
  readonly accumulator: "spendable" | "receiving"
  readonly message: string
}> {}

/** The client's artifacts, verification keys or toolchain differ from what the deployment pins (SDK.md §8). */
export class VersionMismatch extends Data.TaggedError("VersionMismatch")<{
  readonly subject: string
  readonly expected: string
  readonly actual: string
  readonly message: string
}> {}

/** The structured reference string the prover needs is not available. */
export class CrsMissing extends Data.TaggedError("CrsMissing")<{ readonly message: string }> {}

export type KeyDerivationProblem =
  | "SignerRefused"
  | "SignatureMalformed"
  | "SignatureInvalid"
  | "RootMalformed"
  | "NoSignerKey"
  | "SecretOutOfRange"
  | "Exhausted"

/** The root could not be obtained or used (SDK.md §5). */
export class KeyDerivationFailed extends Data.TaggedError("KeyDerivationFailed")<{
  readonly reason: KeyDerivationProblem
  readonly message: string
}> {}

/** The signer returned two different signatures for the same message: its root would not reproduce (SDK.md §5.2). */
export class SignerNotDeterministic extends Data.TaggedError("SignerNotDeterministic")<{ readonly message: string }> {}

export type WitnessProblem =
  | "AmountOutOfRange"
  | "BalanceOutOfRange"
  | "AmountExceedsBalance"
  | "BlindingNotAField"
  | "ZeroEphemeral"
  | "ScalarOutOfRange"
  | "PointNotOnCurve"
  | "IdentityPoint"
  | "InvalidKeys"

/** The inputs cannot make a witness the circuit accepts; nothing was proven. */
export class InvalidWitness extends Data.TaggedError("InvalidWitness")<{
  readonly reason: WitnessProblem
  readonly message: string
}> {}

/** Bytes or text that are not a canonical field element, a Grumpkin point or a 56-character strkey. */
export class InvalidEncoding extends Data.TaggedError("InvalidEncoding")<{
  readonly subject: string
  readonly message: string
}> {}

/** A ciphertext does not open under this account's keys (wrong key, or not addressed to it). */
export class DecryptionFailed extends Data.TaggedError("DecryptionFailed")<{ readonly message: string }> {}
