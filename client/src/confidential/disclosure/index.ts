// Selective disclosure (OpenZeppelin's SELECTIVE_DISCLOSURE.md at 8af46e2c; issue 37), browser-safe: the recipient's
// key and requests, the holder's answers (bundles proven over the disclosure circuits), and the verifier's six steps.
// The package entry (../index.ts) re-exports this (it names the circuits and their manifest itself); Node's loaders of the circuits and keys are in DisclosureFiles.ts.
export { type ArchivedItem, archiveTransfers, transfersOfPage } from "./ArchiveTransfers.ts"
export {
  discloseAuditor,
  discloseReceived,
  discloseReceivedTotal,
  discloseSent,
  discloseSentTotal,
  matchingEvents,
  type ProveDisclosure
} from "./Disclose.ts"
export type { AggregateSize } from "./DisclosureCircuits.ts"
export { checkProofWith, type DisclosureKeys, disclosureKeys } from "./DisclosureKeys.ts"
export {
  Ask as DisclosureAsk,
  Bundle as DisclosureBundle,
  bundleJson,
  CircuitId as DisclosureCircuitId,
  DisclosureRequestFile,
  EventRef,
  parseBundle,
  parseRequest,
  requestFromLink,
  requestJson,
  requestLink
} from "./Exchange.ts"
export {
  makeRecipientKey,
  makeRequest,
  type NewRequest,
  type RecipientKey,
  RecipientKeyFile,
  recipientKeyFile,
  recipientKeyOfFile
} from "./RecipientKey.ts"
export { decodeTransferEvent, fromArchived, isTransferEvent, type TransferEvent } from "./TransferEvent.ts"
export { VARIANTS as DISCLOSURE_VARIANTS, type Variant as DisclosureVariant } from "./Variants.ts"
export { type AnsweredNonces, type CheckProof, type Disclosed, memoryNonces, verifyBundle, type VerifyOptions } from "./Verify.ts"
export {
  AccountNotRegistered,
  AuditorKeyUnresolved,
  ChainUnreadable,
  DisclosureNotOpened,
  EventNotFound,
  NonceReplayed,
  ProofRejected,
  PublicInputsUnavailable,
  RequestMismatch,
  STEP_NAMES as DISCLOSURE_STEPS,
  type VerifyError as DisclosureVerifyError,
  WrongContract
} from "./VerifyErrors.ts"
