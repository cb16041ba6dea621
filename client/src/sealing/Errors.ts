// Typed failures of sealing (issue 31 §1). Each extends Error (`Data.TaggedError`), so a Promise caller can switch on
// `_tag` and `reason`. A message names what failed, never a key, a content key or an amount.
import { Data } from "effect"

export type SealingInputProblem =
  | "AmountInvalid"
  | "IdentifierInvalid"
  | "DuplicateRecipient"
  | "NoRecipients"
  | "SealingKeyInvalid"

/** The inputs cannot be sealed as given (nothing was sealed). */
export class SealingInputInvalid extends Data.TaggedError("SealingInputInvalid")<{
  readonly reason: SealingInputProblem
  readonly message: string
}> {}

export type OpenProblem =
  /** The envelope lists no wrapped key for this member. */
  | "NotARecipient"
  /** The member's wrapped key does not open under their key with this batch and member id: altered, or not theirs. */
  | "WrappedKeyRejected"
  /**
   * The member's content key is not the one the envelope's key commitment names: the sealer handed readers different
   * keys (or the commitment was altered), so what this member would read is not what the digest binds.
   */
  | "KeyCommitmentMismatch"
  /** The content key opened but the nonce, ciphertext or batch id (the AAD) does not authenticate: altered. */
  | "CiphertextRejected"
  /** A version 1 envelope, sealed before key commitments: it opens no more, and must be sealed again. */
  | "VersionOutdated"
  /** Not an envelope of this version and suite, or the authenticated document is not what it should be. */
  | "Malformed"

/** A sealed envelope could not be opened by this member. */
export class SealedOpenFailed extends Data.TaggedError("SealedOpenFailed")<{
  readonly reason: OpenProblem
  readonly message: string
}> {}
