// Why a verifier refused a bundle, each naming the step of SELECTIVE_DISCLOSURE.md §5.3 that failed (0: the binding to
// the verifier's own request, before any step). A refused bundle teaches the verifier nothing about the value.
import { Data } from "effect"

/** 0: the bundle does not answer this request (another ask, another contract or network, another key). */
export class RequestMismatch extends Data.TaggedError("RequestMismatch")<{ readonly step: 0 | 1; readonly message: string }> {}
/** 0: this request's nonce was answered before: a replay. */
export class NonceReplayed extends Data.TaggedError("NonceReplayed")<{ readonly step: 0; readonly message: string }> {}
/** 1: no transfer-family event at the reference (no such transaction, event index, or another event type). */
export class EventNotFound extends Data.TaggedError("EventNotFound")<{ readonly step: 1; readonly message: string }> {}
/** 1: the event was emitted by another contract than the request's token. */
export class WrongContract extends Data.TaggedError("WrongContract")<{ readonly step: 1; readonly message: string }> {}
/** 2: an account the variant reads PVK from is not registered with the token. */
export class AccountNotRegistered extends Data.TaggedError("AccountNotRegistered")<{ readonly step: 2; readonly account: string; readonly message: string }> {}
/** 3: the token's instance or the auditor key active at the event's ledger cannot be read. */
export class AuditorKeyUnresolved extends Data.TaggedError("AuditorKeyUnresolved")<{ readonly step: 3; readonly message: string }> {}
/** 4: a public input the circuit expects is not available (or not well-formed) from the chain. */
export class PublicInputsUnavailable extends Data.TaggedError("PublicInputsUnavailable")<{ readonly step: 4; readonly message: string }> {}
/** 5: UltraHonk verification under the committed key of circuit_id refused the proof. */
export class ProofRejected extends Data.TaggedError("ProofRejected")<{ readonly step: 5; readonly message: string }> {}
/** 6: the disclosure ciphertext does not open under the recipient's key and nonce to an amount. */
export class DisclosureNotOpened extends Data.TaggedError("DecryptionFailed")<{ readonly step: 6; readonly message: string }> {}
/** Stellar RPC could not be read during `step`: nothing is concluded about the bundle. */
export class ChainUnreadable extends Data.TaggedError("ChainUnreadable")<{ readonly step: 1 | 2 | 3; readonly message: string }> {}

export type VerifyError =
  | RequestMismatch
  | NonceReplayed
  | EventNotFound
  | WrongContract
  | AccountNotRegistered
  | AuditorKeyUnresolved
  | PublicInputsUnavailable
  | ProofRejected
  | DisclosureNotOpened
  | ChainUnreadable

export const STEP_NAMES: Readonly<Record<VerifyError["step"], string>> = {
  0: "the request",
  1: "resolve the event",
  2: "resolve the disclosing accounts",
  3: "resolve addr_f and the auditor key",
  4: "construct the public inputs",
  5: "verify the proof",
  6: "decrypt"
}
