// The organization's escrow key (issue 36 §2), browser-safe: derived from a member's wallet, sealed among the members
// who may audit, registered by the auditor registry's operator.
export { deriveEscrowKey, ESCROW_KEY_LABEL, EscrowKeyPair, type EscrowKeyOptions, escrowKeyMessage, escrowSecretFromRoot, pointHex } from "./EscrowKey.ts"
export { type EscrowKeyRef, openEscrowSecret, SEALED_ESCROW_INFO, sealEscrowSecret, shareEscrowSecretWith } from "./SealedEscrowSecret.ts"
export {
  AUDITOR_ERRORS,
  type LandedCall,
  landedRegistryCall,
  prepareRegistryCall,
  readAuditorKey,
  type RegistryCall,
  type RegistryStatus,
  registryStatus
} from "./AuditorRegistry.ts"
/** The escrow key as GET /org/escrow-keys answers it (src/Escrow/Api.ts). */
export type { EscrowKey } from "../../../src/Escrow/Api.ts"
/** The escrow routes' payloads, as the typed client encodes them. */
export { CreateEscrowKey, RegistryCallRequest, RotateEscrowKey } from "../../../src/Escrow/Api.ts"
