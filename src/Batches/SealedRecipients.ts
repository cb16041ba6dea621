import { sealedReaders } from "./SealedReaders.ts"

/**
 * Checks a sealed envelope's recipients (a batch's amounts, a payout's receipt) inside the caller's transaction: each
 * is a current member whose role may read amounts and whose entry names the sealing key they published (else 422), and
 * a share of the same document only adds recipients (else 409) — issue 35 §4, the rule of src/Batches/SealedReaders.ts.
 */
export const checkRecipients = sealedReaders("amounts:read")
