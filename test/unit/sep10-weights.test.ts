import { describe, expect, it, layer } from "@effect/vitest"
import { Keypair, Networks, type Transaction, TransactionBuilder } from "@stellar/stellar-sdk"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { ChallengeRepo } from "../../src/Auth/ChallengeRepo.ts"
import { OperationalKeys } from "../../src/Auth/Keys.ts"
import { countingSigners, Sep10 } from "../../src/Auth/Sep10.ts"
import { SessionVerifier } from "../../src/Auth/SessionVerifier.ts"
import { rpcClientOn, StubLedger } from "../support/RpcClientTest.ts"

const ledger = new StubLedger()
const JWT_SECRET = randomBytes(32).toString("base64url")

/** Used nonces in memory: each challenge verifies once. */
const ChallengeRepoTest = Layer.sync(ChallengeRepo, () => {
  const used = new Set<string>()
  return ChallengeRepo.make({
    consume: (nonce: string) => Effect.sync(() => !used.has(nonce) && used.add(nonce).has(nonce)),
    pruneExpired: () => Effect.succeed(0),
    statelessSince: 0
  })
})

const Settings = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
  ["PUBLIC_URL", "http://payroll.test"],
  ["JWT_SECRET", JWT_SECRET],
  ["SEP10_SIGNING_SECRET", Keypair.random().secret()],
  ["SPONSOR_SECRET", Keypair.random().secret()],
  ["FAUCET_SECRET", Keypair.random().secret()]
])))

const Sep10Test = Layer.mergeAll(
  Sep10.DefaultWithoutDependencies.pipe(
    Layer.provide([ChallengeRepoTest, SessionVerifier.layerTest(JWT_SECRET), OperationalKeys.Default, rpcClientOn(ledger)])
  ),
  SessionVerifier.layerTest(JWT_SECRET)
).pipe(Layer.provide(Settings))

/** Answers a fresh challenge for `account`, signed by `signers`: the SEP-10 verdict, as a session subject or the error. */
const signIn = (account: string, signers: ReadonlyArray<Keypair>) =>
  Effect.gen(function*() {
    const sep10 = yield* Sep10
    const sessions = yield* SessionVerifier
    const { transaction } = yield* sep10.challenge({ account })
    const tx = TransactionBuilder.fromXDR(transaction, Networks.TESTNET) as Transaction
    for (const key of signers) tx.sign(key)
    const verdict = yield* Effect.either(sep10.verify(tx.toXDR()))
    return yield* Either.match(verdict, {
      onLeft: (e) => Effect.succeed(`${e._tag}: ${e.error}`),
      onRight: (session) => Effect.map(sessions.verify(session.token), (s) => `session of ${s.sub === account ? "the account" : s.sub}`)
    })
  })

const thresholds = (medium: number, master: number) => ({ master, low: 0, medium, high: 0 })

describe("SEP-10 weights", () => {
  it("only keys of weight above 0 count", () => {
    const account = { thresholds: thresholds(0, 0), weights: { GMASTER: 0, GSIGNER: 2 } }
    expect(countingSigners(account)).toEqual([{ key: "GSIGNER", weight: 2, type: "ed25519_public_key" }])
  })

  // On the real clock: the SDK checks a challenge's time bounds against it.
  layer(Sep10Test, { excludeTestServices: true })("verify", (it) => {
    it.effect("an account not on the ledger signs with its own key", () =>
      Effect.gen(function*() {
        const wallet = Keypair.random()
        expect(yield* signIn(wallet.publicKey(), [wallet])).toBe("session of the account")
        expect(yield* signIn(wallet.publicKey(), [Keypair.random()])).toMatch(/^InvalidRequest: challenge signatures rejected/)
      }))

    it.effect("a master key of weight 0 cannot sign, even at threshold 0; with no signer above 0 nobody can", () =>
      Effect.gen(function*() {
        const wallet = Keypair.random()
        ledger.setAccount(wallet.publicKey(), { thresholds: thresholds(0, 0), weights: { [wallet.publicKey()]: 0 } })
        expect(yield* signIn(wallet.publicKey(), [wallet])).toBe(
          "InvalidRequest: challenge signatures rejected: the account has no signer of weight above 0"
        )
        const signer = Keypair.random()
        ledger.setAccount(wallet.publicKey(), {
          thresholds: thresholds(0, 0),
          weights: { [wallet.publicKey()]: 0, [signer.publicKey()]: 1 }
        })
        expect(yield* signIn(wallet.publicKey(), [wallet])).toMatch(/^InvalidRequest: challenge signatures rejected/)
        expect(yield* signIn(wallet.publicKey(), [signer])).toBe("session of the account")
      }))

    it.effect("signatures add up to the medium threshold", () =>
      Effect.gen(function*() {
        const wallet = Keypair.random()
        const second = Keypair.random()
        ledger.setAccount(wallet.publicKey(), {
          thresholds: thresholds(3, 2),
          weights: { [wallet.publicKey()]: 2, [second.publicKey()]: 1 }
        })
        expect(yield* signIn(wallet.publicKey(), [wallet])).toMatch(/^InvalidRequest: challenge signatures rejected/)
        expect(yield* signIn(wallet.publicKey(), [second])).toMatch(/^InvalidRequest: challenge signatures rejected/)
        expect(yield* signIn(wallet.publicKey(), [wallet, second])).toBe("session of the account")
      }))

    it.effect("a challenge answers once", () =>
      Effect.gen(function*() {
        const sep10 = yield* Sep10
        const wallet = Keypair.random()
        const { transaction } = yield* sep10.challenge({ account: wallet.publicKey() })
        const tx = TransactionBuilder.fromXDR(transaction, Networks.TESTNET) as Transaction
        tx.sign(wallet)
        yield* sep10.verify(tx.toXDR())
        const again = yield* Effect.flip(sep10.verify(tx.toXDR()))
        expect(again.error).toBe("challenge already used")
      }))
  })
})
