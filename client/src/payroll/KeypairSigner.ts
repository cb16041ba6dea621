import type { Keypair } from "@stellar/stellar-sdk"
import type { MessageSigner } from "../confidential/crypto/KeyDerivation.ts"

/**
 * A wallet's SEP-53 `signMessage` as @stellar/freighter-api defines it (base64), played with the account's own key:
 * ed25519 is deterministic, so the confidential keys and the sealing key derived from it are the ones Freighter's
 * signature gives in the console for the same account.
 */
export const keypairSigner = (key: Keypair): MessageSigner => ({
  signMessage: async (message) => ({ signedMessage: Buffer.from(key.signMessage(message)).toString("base64"), signerAddress: key.publicKey() })
})
