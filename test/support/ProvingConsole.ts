// What the console's suites that prove in Chromium share: the service on the loopback ledger whose token verifies
// every proof (bb.js, OZ's published keys), told where the token's registries are and serving Ignition's CRS; accounts that
// register with real proofs from Node; a member's sealing key derived as their browser derives it. Also run outside
// vitest (bench/console-pay.run.ts): its checks are node:assert's.
import { strictEqual } from "node:assert/strict"
import { Keypair, rpc } from "@stellar/stellar-sdk"
import { Effect, Layer, Schedule } from "effect"
import { prepareCall } from "../../client/src/confidential/chain/Calls.ts"
import type { ConfidentialWallet } from "../../client/src/confidential/ConfidentialWallet.ts"
import { sealAmounts } from "../../client/src/sealing/SealedAmounts.ts"
import { deriveSealingKey } from "../../client/src/sealing/SealingKey.ts"
import { keypairSigner, loopbackWallet, proofVerifier, provingSetup, sequenceOf, signAndSend } from "./ConfidentialProving.ts"
import { LoopbackConfidentialToken } from "./LoopbackConfidentialToken.ts"
import { joinAs, type Member, must } from "./Members.ts"
import { CONFIDENTIAL_TOKEN, TestAppLive, type TestAppShape } from "./TestApp.ts"
import { walletEmployer } from "./Transfer.ts"
import { tokenOf } from "./VersionedToken.ts"

/** The registries the loopback deploys beside the token at CONFIDENTIAL_TOKEN (their ids derive from its id). */
export const REGISTRIES = new LoopbackConfidentialToken(CONFIDENTIAL_TOKEN, () => 0)

/**
 * The service where the token verifies every proof, told where its registries are and serving Ignition's CRS; a ledger
 * closes every `ledgerIntervalMs` (100 in the suites; bench/console-pay.run.ts takes testnet's 5 s).
 */
export const provingApp = (ledgerIntervalMs = 100) => Layer.unwrapScoped(Effect.map(proofVerifier, (verifier) =>
  TestAppLive({
    ARCHIVE_POLL_INTERVAL: "200 millis",
    CONFIDENTIAL_AUDITOR_CONTRACT: REGISTRIES.auditorRegistry,
    CONFIDENTIAL_VERIFIER_CONTRACT: REGISTRIES.verifierRegistry
  }, { ledgerIntervalMs, verifier })))

export const ProvingApp = provingApp()

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
    strictEqual(yield* signAndSend(server, tx, key), "SUCCESS")
    return { wallet, server, deployment }
  })

/** A member's sealing key, derived as their browser derives it, published (PUT /me/sealing-key): a sealing recipient. */
export const publishSealingKey = (app: TestAppShape, orgId: string, member: Pick<Member, "wallet" | "token">) =>
  Effect.gen(function*() {
    const keyPair = yield* Effect.promise(() => deriveSealingKey({ organizationId: orgId, account: member.wallet.publicKey(), signer: keypairSigner(member.wallet) }))
    const published = yield* must(app, "PUT", "/me/sealing-key", member.token, { sealingKey: keyPair.publicKey })
    return { memberId: published.id as string, sealingKey: keyPair.publicKey }
  })

/** An underlying unit: the token counts in 0.0000001. */
export const UNIT = 10_000_000n

/**
 * An organization ready to pay a batch from the console: approvals required; a payer whose confidential account is
 * registered (a real proof), funded and merged; contractors registered with their own keys and ready in the
 * directory; the owner's batch of one payout each, its amounts sealed for the owner, the payer and the approver (keys
 * derived as their browsers derive them), readied and approved by that digest.
 */
export const payrollScene = (app: TestAppShape, name: string, people: ReadonlyArray<{ readonly name: string; readonly amount: bigint }>) =>
  Effect.gen(function*() {
    const owner = yield* walletEmployer(app, "Paying Co")
    yield* must(app, "PATCH", "/org/settings", owner.token, { approvalsRequired: 1 })
    const orgId = (yield* must(app, "GET", "/me", owner.token)).employer.orgId as string
    const payer = yield* joinAs(app, owner, "payer")
    const approver = yield* joinAs(app, owner, "approver")

    const total = people.reduce((sum, p) => sum + p.amount, 0n)
    const paying = yield* registeredWallet(app, payer.wallet)
    tokenOf(app).mintUnderlying(payer.wallet.publicKey(), total)
    for (const call of [
      { fn: "deposit", from: payer.wallet.publicKey(), to: payer.wallet.publicKey(), amount: total } as const,
      { fn: "merge", account: payer.wallet.publicKey() } as const
    ]) {
      const tx = yield* Effect.promise(() => prepareCall(paying.server, paying.deployment, { account: payer.wallet.publicKey(), sequence: sequenceOf(app.rpc, payer.wallet.publicKey()) }, call))
      strictEqual(yield* signAndSend(paying.server, tx, payer.wallet), "SUCCESS")
    }

    const contractors: Array<{ name: string; key: Keypair; wallet: ConfidentialWallet; id: string; amount: bigint }> = []
    for (const person of people) {
      const key = Keypair.random()
      const { wallet } = yield* registeredWallet(app, key)
      const created = yield* must(app, "POST", "/contractors", owner.token, { name: person.name, address: key.publicKey() })
      contractors.push({ name: person.name, key, wallet, id: created.id as string, amount: person.amount })
    }
    for (const c of contractors) {
      yield* Effect.repeat(must(app, "POST", `/contractors/${c.id}/check`, owner.token), {
        schedule: Schedule.spaced("200 millis"),
        until: (answer) => answer.status === "ready"
      }).pipe(Effect.timeout("60 seconds"), Effect.orDie)
    }

    const readers = [
      yield* publishSealingKey(app, orgId, owner),
      yield* publishSealingKey(app, orgId, payer),
      yield* publishSealingKey(app, orgId, approver)
    ]
    const batch = yield* must(app, "POST", "/batches", owner.token, { name })
    const payouts = (yield* must(app, "POST", `/batches/${batch.id}/payouts`, owner.token, { contractorIds: contractors.map((c) => c.id) })) as Array<{ id: string; contractorId: string }>
    const amountOf = (contractorId: string) => contractors.find((c) => c.id === contractorId)!.amount
    const envelope = yield* Effect.promise(() => sealAmounts(batch.id, payouts.map((p) => ({ payoutId: p.id, amount: amountOf(p.contractorId) })), readers))
    const sealed = yield* must(app, "PUT", `/batches/${batch.id}/sealed-amounts`, owner.token, envelope)
    yield* must(app, "POST", `/batches/${batch.id}/ready`, owner.token)
    yield* must(app, "POST", `/batches/${batch.id}/approve`, approver.token, { sealedAmountsDigest: sealed.digest })
    return { owner, payer, approver, contractors, batch: batch as { id: string }, payouts, amountOf, path: `/app/batches/${batch.id}` }
  })
