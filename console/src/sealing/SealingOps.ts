// What the console does with sealed amounts, loaded with import() by the pages that need it (Sealing.tsx): the HPKE
// sealing library (@confidential-payroll/client/sealing) and the Stellar SDK it verifies signatures with stay out of
// the first page's JavaScript. Every key and every amount lives in this tab's memory only.
import { signMessage } from "@stellar/freighter-api"
import {
  deriveSealingKey,
  digest,
  openAmounts,
  type PayoutAmount,
  type Recipient,
  sealAmounts,
  type SealedEnvelope,
  type SealingKeyPair,
  shareWith
} from "@confidential-payroll/client/sealing"

export type { PayoutAmount, Recipient, SealedEnvelope, SealingKeyPair }

/**
 * The member's sealing key in `organizationId`, from their wallet: Freighter's `signMessage` (SEP-53) over the
 * documented message (client/src/sealing/SealingKey.ts), asked twice and compared (once, when it reproduces the key the
 * member published before), so any device re-derives it.
 */
export const deriveKey = (organizationId: string, account: string, published: string | undefined): Promise<SealingKeyPair> =>
  deriveSealingKey({
    organizationId,
    account,
    signer: { signMessage: (message, opts) => signMessage(message, opts) },
    // Reproducing the key published before proves the wallet signs alike: one request instead of two.
    ...(published === undefined ? {} : { published })
  })

export { digest, openAmounts, sealAmounts, shareWith }
