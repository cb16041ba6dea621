import { Account, BASE_FEE, Operation, StrKey, TransactionBuilder, WebAuth } from "@stellar/stellar-sdk"
import { Clock, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { ServerConfig, StellarConfig } from "../Config.ts"
import { InvalidRequest, UpstreamUnavailable } from "../Domain/Errors.ts"
import { type AccountSigners, RpcClient } from "../Stellar/RpcClient.ts"
import { Challenge } from "./Api.ts"
import { ChallengeRepo } from "./ChallengeRepo.ts"
import { OperationalKeys } from "./Keys.ts"
import { nativeSigner } from "./NativeSigner.ts"
import { SessionVerifier } from "./SessionVerifier.ts"
import * as Spans from "../Observability/Spans.ts"

export const CHALLENGE_TTL_SECONDS = 300

/**
 * How long past its challenge's expiry a used nonce is kept: another instance whose clock is behind this one's may
 * still accept the challenge for that long, and must still find the nonce used.
 */
export const CLOCK_SKEW_SECONDS = 300

/** Every failed verification is 400, as SEP-10 clients and SDF's conformance suite expect; 401 is for sessions. */
const invalid = (error: string) => new InvalidRequest({ error })

/**
 * The signers whose signatures count towards the account's medium threshold: a key of weight 0 (a disabled master
 * key) is no signer, and its signature must not count, even at threshold 0.
 */
export const countingSigners = (account: AccountSigners) =>
  Object.entries(account.weights)
    .filter(([, weight]) => weight > 0)
    .map(([key, weight]) => ({ key, weight, type: "ed25519_public_key" as const }))

/** SEP-10 Stellar Web Authentication: challenges signed by the service, answered by the wallet. */
export class Sep10 extends Effect.Service<Sep10>()("Auth/Sep10", {
  effect: Effect.gen(function*() {
    const { homeDomain, webAuthDomain } = yield* ServerConfig
    const { networkPassphrase } = yield* StellarConfig
    const keys = yield* OperationalKeys
    const challenges = yield* ChallengeRepo
    const rpc = yield* RpcClient
    const sessions = yield* SessionVerifier
    const server = keys.sep10.publicKey()
    const signChallenge = nativeSigner(keys.sep10)

    const challenge = Spans.fn("Sep10.challenge")(function*(
      params: { readonly account: string; readonly home_domain?: string | undefined; readonly memo?: string | undefined }
    ) {
      if (!StrKey.isValidEd25519PublicKey(params.account)) {
        return yield* invalid("account must be a Stellar account address (G...)")
      }
      if (params.home_domain !== undefined && params.home_domain !== homeDomain) {
        return yield* invalid(`home_domain must be ${homeDomain}`)
      }
      if (params.memo !== undefined) return yield* invalid("memo is not supported")
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const nonce = randomBytes(48).toString("base64")
      const tx = new TransactionBuilder(new Account(server, "-1"), {
        fee: BASE_FEE,
        networkPassphrase,
        timebounds: { minTime: now, maxTime: now + CHALLENGE_TTL_SECONDS }
      })
        .addOperation(Operation.manageData({ name: `${homeDomain} auth`, value: nonce, source: params.account }))
        .addOperation(Operation.manageData({ name: "web_auth_domain", value: webAuthDomain, source: server }))
        .build()
      signChallenge(tx)
      return new Challenge({ transaction: tx.toXDR(), network_passphrase: networkPassphrase })
    })

    const read = (transaction: string) =>
      Effect.try({
        try: () => WebAuth.readChallengeTx(transaction, server, networkPassphrase, homeDomain, webAuthDomain),
        catch: (e) => invalid(`invalid challenge: ${e instanceof Error ? e.message : "unreadable"}`)
      })

    const verifySignatures = (transaction: string, client: string) =>
      Effect.gen(function*() {
        const signers = yield* rpc.getAccountSigners(client).pipe(
          Effect.tapError((e) => Effect.logWarning("SEP-10 account lookup failed", e.message)),
          Effect.mapError(() => new UpstreamUnavailable({ error: "could not read the account from Stellar RPC" }))
        )
        const verified = Option.match(signers, {
          onNone: () => () =>
            WebAuth.verifyChallengeTxSigners(transaction, server, networkPassphrase, [client], homeDomain, webAuthDomain),
          onSome: (account) => {
            const counting = countingSigners(account)
            if (counting.length === 0) return undefined
            return () =>
              WebAuth.verifyChallengeTxThreshold(
                transaction, server, networkPassphrase, account.thresholds.medium, counting, homeDomain, webAuthDomain
              )
          }
        })
        if (verified === undefined) return yield* invalid("challenge signatures rejected: the account has no signer of weight above 0")
        yield* Effect.try({
          try: verified,
          catch: (e) => invalid(`challenge signatures rejected: ${e instanceof Error ? e.message : "invalid"}`)
        })
      })

    /**
     * `read` checks the service's signature, so the nonce and the time bounds are the ones this service issued: the
     * challenge itself is the record of its issue, and only its use is written down.
     */
    const verify = Spans.fn("Sep10.verify")(function*(transaction: string) {
      const { tx, clientAccountID } = yield* read(transaction)
      if (!StrKey.isValidEd25519PublicKey(clientAccountID)) return yield* invalid("invalid challenge: muxed accounts are not supported")
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const bounds = tx.timeBounds
      if (bounds === undefined || Number(bounds.maxTime) < now || Number(bounds.minTime) > now + 5) {
        return yield* invalid("challenge expired")
      }
      if (Number(bounds.minTime) < challenges.statelessSince) {
        return yield* invalid("challenge issued before the service's upgrade: ask for a new one")
      }
      const nonceOp = tx.operations[0]
      const nonce = nonceOp?.type === "manageData" && nonceOp.value ? Buffer.from(nonceOp.value).toString() : ""
      yield* verifySignatures(transaction, clientAccountID)
      const consumed = yield* challenges.consume(nonce, new Date((Number(bounds.maxTime) + CLOCK_SKEW_SECONDS) * 1000))
      if (!consumed) return yield* invalid("challenge already used")
      yield* Effect.annotateCurrentSpan("account", clientAccountID)
      return yield* sessions.issue(clientAccountID, "sep10")
    })

    return { challenge, verify, signingKey: server, accounts: keys.accounts } as const
  }),
  dependencies: [ChallengeRepo.Default, SessionVerifier.Default, OperationalKeys.Default, RpcClient.Default]
}) {}
