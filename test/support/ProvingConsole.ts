// What the console's suites that prove in Chromium share: the service on the loopback ledger whose token verifies
// every proof (bb.js, the test CRS), told where the token's registries are and serving the test CRS; accounts that
// register with real proofs from Node; a member's sealing key derived as their browser derives it.
import { expect } from "@effect/vitest"
import { type Keypair, rpc } from "@stellar/stellar-sdk"
import { Effect, Layer } from "effect"
import { prepareCall } from "../../client/src/confidential/chain/Calls.ts"
import { deriveSealingKey } from "../../client/src/sealing/SealingKey.ts"
import { keypairSigner, loopbackWallet, proofVerifier, provingSetup, sequenceOf, signAndSend, TEST_CRS_DIR } from "./ConfidentialProving.ts"
import { LoopbackConfidentialToken } from "./LoopbackConfidentialToken.ts"
import { type Member, must } from "./Members.ts"
import { CONFIDENTIAL_TOKEN, TestAppLive, type TestAppShape } from "./TestApp.ts"

/** The registries the loopback deploys beside the token at CONFIDENTIAL_TOKEN (their ids derive from its id). */
export const REGISTRIES = new LoopbackConfidentialToken(CONFIDENTIAL_TOKEN, () => 0)

/** The service where the token verifies every proof, told where its registries are and serving the test CRS. */
export const ProvingApp = Layer.unwrapScoped(Effect.map(proofVerifier, (verifier) =>
  TestAppLive({
    ARCHIVE_POLL_INTERVAL: "200 millis",
    CRS_DIR: TEST_CRS_DIR,
    CONFIDENTIAL_AUDITOR_CONTRACT: REGISTRIES.auditorRegistry,
    CONFIDENTIAL_VERIFIER_CONTRACT: REGISTRIES.verifierRegistry
  }, { ledgerIntervalMs: 100, verifier })))

/** The token's deployment on the loopback, as the client reads it. */
export const loopbackDeployment = (app: TestAppShape) => ({
  contract: CONFIDENTIAL_TOKEN,
  auditorRegistry: REGISTRIES.auditorRegistry,
  verifierRegistry: REGISTRIES.verifierRegistry,
  networkPassphrase: app.rpc.networkPassphrase
})

/** An account on the ledger that registers with the token itself, with a real proof (paying its own fee); its wallet. */
export const registeredWallet = (app: TestAppShape, key: Keypair) =>
  Effect.gen(function*() {
    app.rpc.setAccount({ id: key.publicKey() })
    const setup = yield* provingSetup
    const wallet = yield* loopbackWallet(app.rpc, CONFIDENTIAL_TOKEN, setup, key)
    const server = new rpc.Server(app.rpc.url, { allowHttp: true })
    const deployment = loopbackDeployment(app)
    const data = yield* wallet.proveRegister()
    const tx = yield* Effect.promise(() =>
      prepareCall(server, deployment, { account: key.publicKey(), sequence: sequenceOf(app.rpc, key.publicKey()) }, { fn: "register", account: key.publicKey(), auditorId: 0, data }))
    expect(yield* signAndSend(server, tx, key)).toBe("SUCCESS")
    return { wallet, server, deployment }
  })

/** A member's sealing key, derived as their browser derives it, published (PUT /me/sealing-key): a sealing recipient. */
export const publishSealingKey = (app: TestAppShape, orgId: string, member: Pick<Member, "wallet" | "token">) =>
  Effect.gen(function*() {
    const keyPair = yield* Effect.promise(() => deriveSealingKey({ organizationId: orgId, account: member.wallet.publicKey(), signer: keypairSigner(member.wallet) }))
    const published = yield* must(app, "PUT", "/me/sealing-key", member.token, { sealingKey: keyPair.publicKey })
    return { memberId: published.id as string, sealingKey: keyPair.publicKey }
  })
