// The organization's escrow key (issue 36 §2), browser-safe: derived from a member's wallet, sealed among the members
// who may audit, registered by the auditor registry's operator.
export { deriveEscrowKey, ESCROW_KEY_LABEL, EscrowKeyPair, type EscrowKeyOptions, escrowKeyMessage, escrowSecretFromRoot, pointHex } from "./EscrowKey.ts"
export { type EscrowKeyRef, openEscrowSecret, SEALED_ESCROW_INFO, sealEscrowSecret, shareEscrowSecretWith } from "./SealedEscrowSecret.ts"
export {
  AUDITOR_ERRORS,
  prepareRegistryCall,
  readAuditorKey,
  type RegistryCall,
  type RegistryStatus,
  registryStatus
} from "./AuditorRegistry.ts"
