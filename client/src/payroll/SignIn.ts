import { type Keypair, TransactionBuilder, WebAuth } from "@stellar/stellar-sdk"
import { Data, Effect } from "effect"
import { SignedChallenge } from "../../../src/Auth/Api.ts"
import { makeGroupClient } from "../Client.ts"

/** The service's challenge is not one this client signs (SEP-10 "Verifying the challenge"), or names no signing key. */
export class ChallengeRefused extends Data.TaggedError("ChallengeRefused")<{ readonly message: string }> {}

const signingKeyOf = (toml: string) => /^\s*SIGNING_KEY\s*=\s*"(G[A-Z2-7]{55})"/m.exec(toml)?.[1]

/**
 * SEP-10 sign-in with the account's own key: the challenge is checked as SEP-10 asks a client to — signed by the
 * SIGNING_KEY the service's stellar.toml publishes, for this account, within its time bounds, `manage_data`
 * operations only (stellar-sdk's `WebAuth.readChallengeTx`) — then signed and exchanged for a session.
 * Provide an `HttpClient`.
 */
export const signInWithKeypair = (baseUrl: string, key: Keypair) =>
  Effect.gen(function*() {
    const auth = yield* makeGroupClient("auth", baseUrl)
    const signingKey = signingKeyOf(yield* auth.stellarToml())
    if (signingKey === undefined) return yield* new ChallengeRefused({ message: "the service's stellar.toml names no SIGNING_KEY" })
    const challenge = yield* auth.sep10Challenge({ urlParams: { account: key.publicKey() } })
    const tx = yield* Effect.try({
      try: () => {
        const parsed = TransactionBuilder.fromXDR(challenge.transaction, challenge.network_passphrase)
        if (!("source" in parsed)) throw new Error("it is a fee-bump transaction")
        const [first] = parsed.operations
        const homeDomain = first?.type === "manageData" ? first.name.replace(/ auth$/, "") : ""
        const webAuth = parsed.operations.find((op) => op.type === "manageData" && op.name === "web_auth_domain")
        const webAuthDomain = webAuth?.type === "manageData" && webAuth.value != null ? Buffer.from(webAuth.value).toString("utf8") : ""
        const read = WebAuth.readChallengeTx(challenge.transaction, signingKey, challenge.network_passphrase, homeDomain, webAuthDomain)
        if (read.clientAccountID !== key.publicKey()) throw new Error("it is for another account")
        return parsed
      },
      catch: (e) => new ChallengeRefused({ message: `the service's SEP-10 challenge was refused: ${e instanceof Error ? e.message : String(e)}` })
    })
    tx.sign(key)
    return yield* auth.sep10Verify({ payload: new SignedChallenge({ transaction: tx.toXDR() }) })
  }).pipe(Effect.withSpan("Payroll.signInWithKeypair"))
