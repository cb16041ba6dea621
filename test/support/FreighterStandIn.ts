import { type Keypair, TransactionBuilder } from "@stellar/stellar-sdk"
import type { BrowserContext } from "playwright-core"

/**
 * The Freighter extension, played by the test: a browser context's wallet. The console talks to Freighter only
 * through `@stellar/freighter-api`, which posts `{source: "FREIGHTER_EXTERNAL_MSG_REQUEST", messageId, type, ...}` to
 * the page's own window and waits for a message `{source: "FREIGHTER_EXTERNAL_MSG_RESPONSE", messagedId, ...}` (sic:
 * `messagedId`) that the extension's content script posts back. This answers the same messages the same way, pinned
 * to @stellar/freighter-api 6.0.1: `@shared/api/helpers/extensionMessaging.ts` (`sendMessageToContentScript`),
 * `@shared/api/external.ts` (the fields each request sends and each answer carries) and `@shared/constants/services.ts`
 * (`EXTERNAL_SERVICE_TYPES`, `EXTERNAL_MSG_REQUEST`, `EXTERNAL_MSG_RESPONSE`), as shipped in the package's source map
 * (node_modules/@stellar/freighter-api/build/index.min.js.map). The console has no test-only code path: it runs the
 * library unchanged. Transactions are signed here, in the test process, with the context's key.
 *
 * `signMessage` posts `SUBMIT_BLOB` (`@shared/api/external.ts` `submitMessage`: `blob` = the message, `accountToSign`,
 * `apiVersion` = the library's own version, `networkPassphrase`) and reads `signedBlob`; the extension
 * (stellar/freighter, extension/src/background/messageListener/freighterApiMessageListener.ts `submitBlob`) signs it
 * as SEP-53 and, for an `apiVersion` of 4.0.0 or later, answers the 64-byte signature as base64. Here the SDK's
 * `Keypair.signMessage` (SEP-53) signs it.
 */
const STAND_IN = (publicKey: string) => `(() => {
  const REQUEST = "FREIGHTER_EXTERNAL_MSG_REQUEST"
  const RESPONSE = "FREIGHTER_EXTERNAL_MSG_RESPONSE"
  const publicKey = ${JSON.stringify(publicKey)}
  const networkDetails = {
    network: "TESTNET",
    networkName: "Test Net",
    networkUrl: "https://horizon-testnet.stellar.org",
    networkPassphrase: "Test SDF Network ; September 2015",
    sorobanRpcUrl: "https://soroban-testnet.stellar.org"
  }
  window.addEventListener("message", async (event) => {
    if (event.source !== window) return
    const request = event.data
    if (request === null || typeof request !== "object" || request.source !== REQUEST) return
    const reply = (answer) => window.postMessage({ source: RESPONSE, messagedId: request.messageId, ...answer }, window.location.origin)
    switch (request.type) {
      case "REQUEST_CONNECTION_STATUS": return reply({ isConnected: true })
      case "REQUEST_ALLOWED_STATUS": return reply({ isAllowed: true })
      case "SET_ALLOWED_STATUS": return reply({ isAllowed: true })
      case "REQUEST_ACCESS":
      case "REQUEST_PUBLIC_KEY": return reply({ publicKey })
      case "REQUEST_NETWORK_DETAILS": return reply({ networkDetails })
      case "SUBMIT_TRANSACTION": {
        if (request.accountToSign !== undefined && request.accountToSign !== publicKey) {
          return reply({ apiError: { code: -4, message: "The user rejected this request." } })
        }
        const signed = await window.__freighterStandInSign(request.transactionXdr, request.networkPassphrase ?? networkDetails.networkPassphrase)
        return reply({ signedTransaction: signed, signerAddress: publicKey })
      }
      case "SUBMIT_BLOB": {
        if (request.accountToSign !== undefined && request.accountToSign !== publicKey) {
          return reply({ apiError: { code: -4, message: "The user rejected this request." } })
        }
        const signedBlob = await window.__freighterStandInSignMessage(String(request.blob))
        return reply({ signedBlob, signerAddress: publicKey })
      }
      default: return reply({ apiError: { code: -1, message: "not supported by the test wallet: " + request.type } })
    }
  })
})()`

/** What the person was asked to confirm in the wallet: each request is one confirmation in Freighter. */
export interface WalletConfirmations {
  /** signMessage (SUBMIT_BLOB): a key derivation asks one or two. */
  signMessage: number
  /** signTransaction (SUBMIT_TRANSACTION): a sign-in challenge, a registration, each payout. */
  signTransaction: number
}

/** Installs the stand-in in every page of `context`, as the wallet of `key`; answers the confirmations it counts. */
export const installFreighter = async (context: BrowserContext, key: Keypair): Promise<WalletConfirmations> => {
  const confirmations: WalletConfirmations = { signMessage: 0, signTransaction: 0 }
  await context.exposeBinding("__freighterStandInSign", (_source, xdr: string, passphrase: string) => {
    confirmations.signTransaction++
    const transaction = TransactionBuilder.fromXDR(xdr, passphrase)
    transaction.sign(key)
    return transaction.toXDR()
  })
  await context.exposeBinding("__freighterStandInSignMessage", (_source, message: string) => {
    confirmations.signMessage++
    return Buffer.from(key.signMessage(message)).toString("base64")
  })
  await context.addInitScript({ content: STAND_IN(key.publicKey()) })
  return confirmations
}
