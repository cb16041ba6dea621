import { Address, Keypair, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { generateKeyPair } from "jose"
import { randomUUID } from "node:crypto"
import { ok, type Recipe, type Refusal, refused, type ValidRequest } from "./ConformanceRecipe.ts"

export type { ValidRequest } from "./ConformanceRecipe.ts"
import { registerData, transferData } from "./ConfidentialData.ts"
import { escrowRequests } from "./ConformanceEscrow.ts"
import { CONFIDENTIAL_TOKEN } from "./TestApp.ts"
import { innerTransfer } from "./Transfer.ts"
import { privyToken } from "./Privy.ts"
import { archiveRefusals, archiveRequests } from "./ConformanceArchive.ts"
import { webhookRefusals, webhookRequests } from "./ConformanceWebhooks.ts"
import { controlsRefusals, controlsRequests } from "./ConformanceControls.ts"
import { sealingRefusals, sealingRequests } from "./ConformanceSealing.ts"
import { receiptRefusals, receiptRequests } from "./ConformanceReceipts.ts"
import { stellarRpcRefusals, stellarRpcRequests } from "./ConformanceStellarRpc.ts"

const privyStranger = await generateKeyPair("ES256")

const at = (request: Omit<ValidRequest, "expect">, expect = 200) => Effect.succeed(ok(request, expect))

/**
 * A wallet's own signed `register(account, 0, RegisterData)` (a stand-in proof: this token takes any well-formed one)
 * and the wallet's session; the organization of `employerToken` adds the wallet as a contractor unless `known` is false.
 */
const registerRequest = (fx: Parameters<Recipe>[0], employerToken: string, known = true) =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    fx.app.rpc.setAccount({ id: wallet.publicKey() })
    if (known) yield* fx.setUp("POST", "/contractors", employerToken, { name: `Registering ${unique()}`, address: wallet.publicKey() })
    const args = [Address.fromString(wallet.publicKey()).toScVal(), xdr.ScVal.scvU32(0), xdr.ScVal.scvBytes(Buffer.from(registerData()))]
    return { token: yield* fx.session(wallet), signedXDR: innerTransfer(fx.app, wallet, { fn: "register", args, register: false }) }
  })
const unique = () => randomUUID().slice(0, 8)

/** A payer's own signed `register(account, 0, RegisterData)` of its wallet (not registered yet), and its session. */
const payerRegisterRequest = (fx: Parameters<Recipe>[0]) =>
  Effect.map(fx.payer(), ({ token, wallet }) => {
    const args = [Address.fromString(wallet.publicKey()).toScVal(), xdr.ScVal.scvU32(0), xdr.ScVal.scvBytes(Buffer.from(registerData()))]
    return { token, wallet, signedXDR: innerTransfer(fx.app, wallet, { fn: "register", args, register: false }) }
  })

/**
 * How to make a valid request of each operation, by `METHOD /path` as the document names it. Each prepares what
 * it stands on first (through the service, so the database must be up), and returns a request that is only sent
 * later. An operation of the document missing here fails the suite.
 */
export const validRequests: Readonly<Record<string, Recipe>> = {
  "GET /health": () => at({}),
  "GET /health/ready": () => at({}),
  "GET /health/live": () => at({}),
  "GET /auth/sep10/challenge": () => at({ query: { account: Keypair.random().publicKey() } }),
  "POST /auth/sep10/verify": (fx) =>
    Effect.map(fx.signedChallenge("/auth/sep10/challenge"), (transaction) => ok({ json: { transaction } })),
  "GET /auth": () => at({ query: { account: Keypair.random().publicKey() } }),
  "POST /auth": (fx) => Effect.map(fx.signedChallenge("/auth"), (transaction) => ok({ json: { transaction } })),
  "POST /auth/privy": () => Effect.map(privyToken({ sub: `did:privy:${unique()}` }), (token) => ok({ json: { token } })),
  "GET /.well-known/stellar.toml": () => at({}),
  "GET /me": (_, e) => at({ token: e.token }),
  "POST /orgs": (fx) => Effect.map(fx.session(), (token) => ok({ token, json: { name: "Conformance Org" } })),
  "POST /orgs/invites": (_, e) => at({ token: e.token, json: { role: "approver" } }),
  "POST /api-keys": (_, e) => at({ token: e.token, json: { name: "Conformance runner", scopes: ["directory:read", "transfers:submit"] } }),
  "GET /api-keys": (fx, e) => Effect.map(fx.apiKey(e.token), () => ok({ token: e.token })),
  "DELETE /api-keys/{id}": (fx, e) => Effect.map(fx.apiKey(e.token), ({ id }) => ok({ token: e.token, params: { id } }, 204)),
  "POST /orgs/join/{token}": (fx, e) =>
    Effect.zipWith(fx.orgInvite(e.token), fx.session(), (invite, token) => ok({ token, params: { token: invite } })),
  "POST /invites/{token}/accept": (fx, e) =>
    Effect.zipWith(fx.contractorInvite(e.token), fx.session(), (invite, token) => ok({ token, params: { token: invite }, json: {} })),
  "POST /contractors": (_, e) =>
    at({ token: e.token, json: { name: "Ada Lovelace", email: `ada-${unique()}@example.com`, rate: { amount: "1500", currency: "USDC" } } }),
  "GET /contractors": (_, e) => at({ token: e.token, query: { limit: "10" } }),
  "POST /contractors/bulk": (_, e) =>
    at({ token: e.token, json: { rows: [{ name: "Grace Hopper", email: `grace-${unique()}@example.com`, amount: 1200.5 }, { name: "", email: "bad" }] } }),
  "GET /contractors/{id}": (fx, e) => Effect.map(fx.readyContractor(e.token), ({ id }) => ok({ token: e.token, params: { id } })),
  "PATCH /contractors/{id}": (fx, e) =>
    Effect.map(fx.invitedContractor(e.token), ({ id }) => ok({ token: e.token, params: { id }, json: { name: "Renamed" } })),
  "POST /contractors/{id}/invites": (fx, e) => Effect.map(fx.invitedContractor(e.token), ({ id }) => ok({ token: e.token, params: { id } })),
  "POST /contractors/{id}/check": (fx, e) => Effect.map(fx.readyContractor(e.token), ({ id }) => ok({ token: e.token, params: { id } })),
  "POST /transfer": (fx) =>
    Effect.map(fx.payer(), ({ token, wallet }) => ok({ token, json: { signedXDR: innerTransfer(fx.app, wallet) } })),
  "POST /transfers/prepare": (fx) =>
    Effect.map(fx.payer(), ({ token, wallet }) => {
      const to = Keypair.random().publicKey()
      for (const address of [wallet.publicKey(), to]) {
        if (fx.app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, address) === undefined) fx.app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address)
      }
      return ok({ token, json: { to, data: Buffer.from(transferData()).toString("base64"), validFor: 120 } })
    }),
  "GET /transfers/{hash}": (fx) => Effect.map(fx.landedTransfer(), ({ employer, hash }) => ok({ token: employer.token, params: { hash } })),
  "POST /batches": (_, e) => at({ token: e.token, json: { name: "December" } }),
  "GET /batches": (_, e) => at({ token: e.token, query: { limit: "10" } }),
  "GET /batches/{id}": (fx, e) => Effect.map(fx.batchWithPayout(e.token), ({ batchId }) => ok({ token: e.token, params: { id: batchId } })),
  "DELETE /batches/{id}": (fx, e) => Effect.map(fx.draftBatch(e.token), (id) => ok({ token: e.token, params: { id } }, 204)),
  "POST /batches/{id}/ready": (fx, e) => Effect.map(fx.batchWithPayout(e.token), ({ batchId }) => ok({ token: e.token, params: { id: batchId } })),
  "GET /batches/{id}/payouts": (fx) =>
    Effect.gen(function*() {
      const { batchId, employerToken } = yield* fx.paidContractor()
      return ok({ token: employerToken, params: { id: batchId } })
    }),
  "POST /batches/{id}/payouts": (fx, e) =>
    Effect.zipWith(fx.draftBatch(e.token), fx.readyContractor(e.token), (id, contractor) =>
      ok({ token: e.token, params: { id }, json: { contractorIds: [contractor.id] } })),
  "DELETE /batches/{id}/payouts/{payoutId}": (fx, e) =>
    Effect.map(fx.batchWithPayout(e.token), ({ batchId, payoutId }) => ok({ token: e.token, params: { id: batchId, payoutId } }, 204)),
  "POST /batch": (fx) =>
    Effect.map(fx.payer(), ({ token, wallet }) => ok({ token, json: { transactions: [{ signedXDR: innerTransfer(fx.app, wallet) }] } })),
  "GET /batch/{jobId}": (fx) => Effect.map(fx.job(), ({ jobId, token }) => ok({ token, params: { jobId } })),
  "GET /contractor/payouts": (fx) =>
    Effect.gen(function*() {
      const { wallet } = yield* fx.paidContractor()
      return ok({ token: yield* fx.session(wallet), query: { limit: "10" } })
    }),
  "POST /contractor/register": (fx, e) => Effect.map(registerRequest(fx, e.token), ({ token, signedXDR }) => ok({ token, json: { signedXDR } })),
  "POST /token/calls": (fx) => Effect.map(payerRegisterRequest(fx), ({ token, signedXDR }) => ok({ token, json: { signedXDR } })),
  "GET /funding/vault": (fx) => Effect.map(fx.session(), (token) => ok({ token })),
  "POST /funding/faucet": (fx) => Effect.map(fx.session(), (token) => ok({ token, json: {} })),
  "POST /withdraw": (fx) => Effect.map(fx.session(), (token) => ok({ token }, 501)),
  "POST /auditor/disclose": (fx) => Effect.map(fx.session(), (token) => ok({ token }, 501)),
  "GET /audit": (_, e) => at({ token: e.token, query: { limit: "10" } }),
  "GET /audit/verify": (_, e) => at({ token: e.token }),
  "GET /exports/payouts.csv": (fx, e) => Effect.map(fx.batchWithPayout(e.token), ({ batchId }) => ok({ token: e.token, query: { batchId } })),
  "GET /exports/contractors.csv": (_, e) => at({ token: e.token }),
  "GET /exports/audit.csv": (_, e) => at({ token: e.token, query: { from: "2020-01-01T00:00:00.000Z" } }),
  "GET /statistics": (_, e) => at({ token: e.token, query: { from: "2020-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" } }),
  // Every service serves Aztec Ignition's CRS (client/crs unless CRS_DIR names another copy).
  "GET /crs/bn254_g1.dat": () => at({}),
  "GET /crs/bn254_g2.dat": () => at({}),
  // The suite's service names the token; its registries and asset are read from the token's instance on the loopback.
  "GET /confidential/deployment": () => at({}),
  ...archiveRequests,
  ...webhookRequests,
  ...controlsRequests,
  ...sealingRequests,
  ...escrowRequests,
  ...receiptRequests,
  ...stellarRpcRequests
}


/**
 * Requests the document allows that the service refuses by its rules (409, 422, 429): their answers reach the
 * handlers' own errors, which must validate as well. By operation; any operation may have none.
 */
export const refusedRequests: Readonly<Record<string, Refusal>> = {
  "POST /auth/sep10/verify": (fx) =>
    Effect.map(fx.setUp("GET", `/auth/sep10/challenge?account=${Keypair.random().publicKey()}`), (challenge) =>
      refused("challenge not signed by the account", ok({ json: { transaction: challenge.transaction } }, 400))),
  "POST /auth/privy": () =>
    Effect.map(privyToken({ key: privyStranger.privateKey }), (token) => refused("Privy token signed by another key", ok({ json: { token } }, 401))),
  "POST /orgs": (_, e) => Effect.succeed(refused("already in an organization", ok({ token: e.token, json: { name: "Second Org" } }, 409))),
  "POST /api-keys": (fx, e) =>
    Effect.map(fx.apiKey(e.token), ({ key }) => [
      ["expiresAt in the past", ok({ token: e.token, json: { name: "Late", scopes: ["batches:read"], expiresAt: "2020-01-01T00:00:00.000Z" } }, 400)],
      ["an API key managing keys", ok({ token: key, json: { name: "Nested", scopes: ["batches:read"] } }, 403)]
    ] as const),
  "POST /contractors": (fx, e) =>
    Effect.gen(function*() {
      const email = `dup-${unique()}@example.com`
      yield* fx.setUp("POST", "/contractors", e.token, { name: "First", email })
      return refused("duplicate email", ok({ token: e.token, json: { name: "Second", email: email.toUpperCase() } }, 409))
    }),
  "PATCH /contractors/{id}": (fx, e) =>
    Effect.map(fx.invitedContractor(e.token), ({ id }) => refused("illegal status move", ok({ token: e.token, params: { id }, json: { status: "ready" } }, 409))),
  "POST /contractors/{id}/invites": (fx, e) =>
    Effect.map(fx.readyContractor(e.token), ({ id }) => refused("contractor not invited", ok({ token: e.token, params: { id } }, 409))),
  "DELETE /batches/{id}": (fx, e) => Effect.map(fx.readyBatch(e.token), (id) => refused("batch not a draft", ok({ token: e.token, params: { id } }, 409))),
  "POST /batches/{id}/ready": (fx, e) => Effect.map(fx.draftBatch(e.token), (id) => refused("batch without payouts", ok({ token: e.token, params: { id } }, 409))),
  "POST /batches/{id}/payouts": (fx, e) =>
    Effect.zipWith(fx.draftBatch(e.token), fx.invitedContractor(e.token), (id, contractor) =>
      refused("contractor not ready", ok({ token: e.token, params: { id }, json: { contractorIds: [contractor.id] } }, 409))),
  "POST /transfer": (fx) =>
    Effect.map(fx.payer(), ({ token, wallet }) => [
      ["inner fee over SPONSOR_MAX_INNER_FEE", ok({ token, json: { signedXDR: innerTransfer(fx.app, wallet, { fee: 100_000_000 }) } }, 422)],
      ["not confidential_transfer", ok({ token, json: { signedXDR: innerTransfer(fx.app, wallet, { fn: "transfer" }) } }, 422)],
      ["not a transaction envelope", ok({ token, json: { signedXDR: "AAAA" } }, 400)]
    ] as const),
  "POST /contractor/register": (fx, e) =>
    Effect.map(registerRequest(fx, e.token, false), ({ token, signedXDR }) =>
      refused("an address no organization has as a contractor", ok({ token, json: { signedXDR } }, 403))),
  "POST /token/calls": (fx, e) =>
    Effect.zipWith(payerRegisterRequest(fx), registerRequest(fx, e.token, false), (payer, stranger) => {
      const other = Address.fromString(Keypair.random().publicKey()).toScVal()
      const merge = innerTransfer(fx.app, payer.wallet, { fn: "merge", args: [other], register: false })
      return [
        ["a merge of another account", ok({ token: payer.token, json: { signedXDR: merge } }, 422)],
        ["neither a member who may pay nor a contractor", ok({ token: stranger.token, json: { signedXDR: stranger.signedXDR } }, 403)]
      ] as const
    }),
  "POST /transfers/prepare": (fx) =>
    Effect.map(fx.payer(), ({ token }) => [
      ["recipient not registered with the token", ok({ token, json: { to: Keypair.random().publicKey(), data: "AAAA" } }, 422)]
    ] as const),
  "POST /funding/faucet": (fx) =>
    Effect.gen(function*() {
      const token = yield* fx.session()
      const address = Keypair.random().publicKey()
      yield* fx.faucetGrant(token, address)
      return refused("second grant within 24 hours", ok({ token, json: { address } }, 429))
    }),
  ...archiveRefusals,
  ...webhookRefusals,
  ...controlsRefusals,
  ...sealingRefusals,
  ...receiptRefusals,
  ...stellarRpcRefusals
}
