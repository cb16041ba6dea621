import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { call, signChallenge, signIn } from "./Client.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"
import { innerTransfer, walletEmployer } from "./Transfer.ts"

/** A setup call that must succeed: its JSON body, or the test dies saying which call failed and how. */
const must = (app: TestAppShape, method: string, path: string, token?: string, json?: unknown) =>
  call(app, method, path, { ...(token === undefined ? {} : { token }), ...(json === undefined ? {} : { json }) }).pipe(
    Effect.flatMap((r) =>
      r.status < 300 ? Effect.succeed(r.body) : Effect.dieMessage(`set-up ${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`)
    )
  )

/**
 * What the valid requests stand on, made through the service itself: sessions, organizations, contractors (ready
 * ones are registered with the loopback confidential token), batches, payouts, transfers and invites.
 */
export const conformanceFixtures = (app: TestAppShape) => {
  const session = (wallet: Keypair = Keypair.random()) => signIn(app, wallet)

  /** An employer whose wallet is on the loopback ledger: a fresh one each time, so no two transfers share a sequence. */
  const payer = () => walletEmployer(app, "Conformance Co")

  const readyContractor = (token: string, wallet: Keypair = Keypair.random()) => {
    app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
    return must(app, "POST", "/contractors", token, { name: "Ready Contractor", address: wallet.publicKey() }).pipe(
      Effect.map((c) => ({ id: c.id as string, wallet }))
    )
  }

  const invitedContractor = (token: string) =>
    Effect.map(must(app, "POST", "/contractors", token, { name: "Invited Contractor" }), (c) => ({ id: c.id as string }))

  const draftBatch = (token: string) => Effect.map(must(app, "POST", "/batches", token, { name: "Conformance" }), (b) => b.id as string)

  const batchWithPayout = (token: string, wallet?: Keypair) =>
    Effect.gen(function*() {
      const contractor = yield* readyContractor(token, wallet)
      const batchId = yield* draftBatch(token)
      const payouts = yield* must(app, "POST", `/batches/${batchId}/payouts`, token, { contractorIds: [contractor.id] })
      return { batchId, payoutId: payouts[0].id as string, contractor }
    })

  const readyBatch = (token: string) =>
    Effect.gen(function*() {
      const { batchId } = yield* batchWithPayout(token)
      yield* must(app, "POST", `/batches/${batchId}/ready`, token)
      return batchId
    })

  /** A faucet grant to `address`: the next one within 24 hours is refused. */
  const faucetGrant = (token: string, address: string) => must(app, "POST", "/funding/faucet", token, { address })

  const contractorInvite = (token: string) =>
    Effect.gen(function*() {
      const { id } = yield* invitedContractor(token)
      return (yield* must(app, "POST", `/contractors/${id}/invites`, token)).token as string
    })

  /** An API key of the employer's organization: its id and its secret. */
  const apiKey = (token: string) =>
    Effect.map(must(app, "POST", "/api-keys", token, { name: "Conformance key", scopes: ["directory:read"] }), (k) => ({
      id: k.id as string,
      key: k.key as string
    }))

  const orgInvite = (token: string) => Effect.map(must(app, "POST", "/orgs/invites", token, {}), (i) => i.token as string)

  const signedChallenge = (path: string) =>
    Effect.gen(function*() {
      const wallet = Keypair.random()
      const challenge = yield* must(app, "GET", `${path}?account=${wallet.publicKey()}`)
      return signChallenge(challenge.transaction, challenge.network_passphrase, wallet)
    })

  /** A transfer on the ledger: its hash and the employer that sent it. */
  const landedTransfer = () =>
    Effect.gen(function*() {
      const employer = yield* payer()
      const sent = yield* must(app, "POST", "/transfer", employer.token, { signedXDR: innerTransfer(app, employer.wallet) })
      return { hash: sent.hash as string, employer }
    })

  /** A contractor's wallet with one settled payout in a started batch, so its payouts list is not empty. */
  const paidContractor = () =>
    Effect.gen(function*() {
      const employer = yield* payer()
      const wallet = Keypair.random()
      const { batchId, payoutId } = yield* batchWithPayout(employer.token, wallet)
      yield* must(app, "POST", `/batches/${batchId}/ready`, employer.token)
      const signedXDR = innerTransfer(app, employer.wallet, { to: wallet.publicKey() })
      yield* must(app, "POST", "/transfer", employer.token, { signedXDR, payoutId })
      return { wallet, batchId, employerToken: employer.token }
    })

  const job = () =>
    Effect.gen(function*() {
      const employer = yield* payer()
      const accepted = yield* must(app, "POST", "/batch", employer.token, { transactions: [{ signedXDR: innerTransfer(app, employer.wallet) }] })
      return { jobId: accepted.jobId as string, token: employer.token }
    })

  return {
    app,
    /** Any set-up call that must succeed. */
    setUp: (method: string, path: string, token?: string, json?: unknown) => must(app, method, path, token, json),
    session,
    payer,
    readyContractor,
    invitedContractor,
    draftBatch,
    batchWithPayout,
    readyBatch,
    faucetGrant,
    contractorInvite,
    orgInvite,
    apiKey,
    signedChallenge,
    landedTransfer,
    paidContractor,
    job
  } as const
}

export type ConformanceFixtures = ReturnType<typeof conformanceFixtures>
