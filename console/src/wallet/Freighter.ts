import { isConnected, requestAccess, signTransaction } from "@stellar/freighter-api"
import { DateTime } from "effect"
import { SignedChallenge } from "@confidential-payroll/client/contract"
import { clientFor, run } from "../api/Client.ts"
import type { StoredSession } from "../session/Session.tsx"
import type { SignInStep } from "./SignInStep.ts"

/** What went wrong on the wallet's side, in words for a person. */
export class WalletError extends Error {}


/**
 * SEP-10 with the Freighter browser extension: the wallet shares its account, the service hands out a challenge for
 * it (the typed client), the wallet signs it, and the service answers a session for the signed challenge.
 */
export const signInWithFreighter = async (onStep: (step: SignInStep) => void): Promise<StoredSession> => {
  const client = clientFor(undefined)
  onStep("wallet")
  const connected = await isConnected()
  if (!connected.isConnected) {
    throw new WalletError("Freighter is not installed in this browser (or is turned off): add it from freighter.app, then try again.")
  }
  const access = await requestAccess()
  if (access.error !== undefined || access.address === "") {
    throw new WalletError(`Freighter did not share an account${access.error === undefined ? "" : `: ${access.error.message}`}.`)
  }
  onStep("challenge")
  const challenge = await run(client.auth.sep10Challenge({ urlParams: { account: access.address } }))
  onStep("signing")
  const signed = await signTransaction(challenge.transaction, {
    networkPassphrase: challenge.network_passphrase,
    address: access.address
  })
  if (signed.error !== undefined || signed.signedTxXdr === "") {
    throw new WalletError(`Freighter did not sign the sign-in challenge${signed.error === undefined ? "" : `: ${signed.error.message}`}.`)
  }
  onStep("verifying")
  const session = await run(client.auth.sep10Verify({ payload: new SignedChallenge({ transaction: signed.signedTxXdr }) }))
  return { token: session.token, expiresAt: DateTime.toEpochMillis(session.expiresAt) }
}

