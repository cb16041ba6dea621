// POST /token/calls: a wallet's own calls on the confidential token, signed in its client and sponsored by the
// service (the console's wallet runs in the browser, which cannot submit a transaction). Real proofs: OZ's circuits
// proven with bb.js over Ignition's CRS, verified by the loopback token against OZ's keys (test/confidential-client.test.ts does the same
// through the wallet's own fees). A payer registers, deposits and merges the organization's wallet; a contractor
// registers, merges and withdraws; neither spends a stroop of XLM. Then who and what the route refuses.
import { expect, layer } from "@effect/vitest"
import { FetchHttpClient } from "@effect/platform"
import { Address, Keypair, nativeToScVal, Operation, rpc, StrKey, type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { prepareCall, type TokenCall } from "../client/src/confidential/chain/Calls.ts"
import type { ConfidentialWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { api } from "./support/Api.ts"
import { call, signIn } from "./support/Client.ts"
import {
  deploymentOf, loopbackWallet, proofVerifier, provingSetup, sequenceOf, signAndSend, syncUntil as syncWallet
} from "./support/ConfidentialProving.ts"
import { joinAs, must, orgWithEveryRole } from "./support/Members.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { innerTransfer, walletEmployer } from "./support/Transfer.ts"
import { tokenOf } from "./support/VersionedToken.ts"

const ProvingApp = Layer.unwrapScoped(
  Effect.map(proofVerifier, (verifier) => TestAppLive({ ARCHIVE_POLL_INTERVAL: "200 millis", ...privyConfig }, { ledgerIntervalMs: 100, verifier }))
)

const walletFor = (app: TestAppShape, key: Keypair) =>
  Effect.flatMap(provingSetup, (setup) => loopbackWallet(app.rpc, CONFIDENTIAL_TOKEN, setup, key))

const syncUntil = (app: TestAppShape, wallet: ConfidentialWallet, done: (b: { spendable: bigint; receiving: bigint }) => boolean) =>
  syncWallet(app.url, CONFIDENTIAL_TOKEN, wallet, done)

/** The call as the wallet's client builds it: simulated through Stellar RPC at the account's next sequence number, unsigned. */
const prepare = (app: TestAppShape, key: Keypair, tokenCall: TokenCall) =>
  Effect.promise(() =>
    prepareCall(
      new rpc.Server(app.rpc.url, { allowHttp: true }),
      deploymentOf(tokenOf(app), app.rpc.networkPassphrase),
      { account: key.publicKey(), sequence: sequenceOf(app.rpc, key.publicKey()) },
      tokenCall
    ))

/** A signed copy of `tx`, as the wallet hands it back (the prepared transaction stays unsigned). */
const signedBy = (app: TestAppShape, tx: Transaction, key: Keypair) => {
  const copy = TransactionBuilder.fromXDR(tx.toXDR(), app.rpc.networkPassphrase) as Transaction
  copy.sign(key)
  return copy.toXDR()
}

const post = (app: TestAppShape, token: string, signedXDR: string, path = "/token/calls") => call(app, "POST", path, { token, json: { signedXDR } })

/** The typed client's POST /token/calls: a declared error fails the effect as its own class. */
const submit = (app: TestAppShape, token: string, signedXDR: string) =>
  Effect.flatMap(api(app, token), (client) => client.tokenCalls.submit({ payload: { signedXDR } }))

const address = (account: string) => Address.fromString(account).toScVal()

const balanceOf = (app: TestAppShape, account: string) => app.rpc.account(account)?.balance

/** A merge of `key`'s own account, signed, as the refusal cases send it (refused before anything reaches the chain). */
const mergeOf = (app: TestAppShape, key: Keypair, options: Parameters<typeof innerTransfer>[2] = {}) =>
  innerTransfer(app, key, { fn: "merge", args: [address(key.publicKey())], register: false, passphrase: app.rpc.networkPassphrase, ...options })

// The layer's timeout covers building it (the verifier's worker); each test has its own.
layer(ProvingApp, { timeout: "300 seconds" })("POST /token/calls", (it) => {
  it.effect("a payer registers, deposits into and merges the organization's wallet, the sponsor paying every fee", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const owner = yield* walletEmployer(app, "Treasury Co")
      const payer = yield* joinAs(app, owner, "payer")
      const account = payer.wallet.publicKey()
      const xlm = balanceOf(app, account)
      const sponsored = balanceOf(app, app.sponsorKey.publicKey())!
      const wallet = yield* walletFor(app, payer.wallet)

      const registerData = yield* wallet.proveRegister()
      const register = signedBy(app, yield* prepare(app, payer.wallet, { fn: "register", account, auditorId: 0, data: registerData }), payer.wallet)
      const registered = yield* submit(app, payer.token, register)
      expect(registered.status).toBe("SUCCESS")
      expect(app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, account)).toBeDefined()

      tokenOf(app).mintUnderlying(account, 1_000n)
      const deposit = signedBy(app, yield* prepare(app, payer.wallet, { fn: "deposit", from: account, to: account, amount: 600n }), payer.wallet)
      const deposited = yield* submit(app, payer.token, deposit)
      const merge = signedBy(app, yield* prepare(app, payer.wallet, { fn: "merge", account }), payer.wallet)
      const merged = yield* submit(app, payer.token, merge)
      expect([deposited.status, merged.status]).toEqual(["SUCCESS", "SUCCESS"])
      expect(tokenOf(app).underlyingBalance(account)).toBe(400n)
      expect(yield* syncUntil(app, wallet, (b) => b.spendable === 600n)).toEqual({ spendable: 600n, receiving: 0n })

      // Sponsored: the payer's XLM is untouched, the sponsor paid the three fee-bumps.
      expect(balanceOf(app, account)).toBe(xlm)
      expect(balanceOf(app, app.sponsorKey.publicKey())!).toBeLessThan(sponsored)
      const paid = balanceOf(app, app.sponsorKey.publicKey())!

      // The same signed merge again is answered from its submission, never sent again.
      const again = yield* submit(app, payer.token, merge)
      expect(again).toEqual(merged)
      expect(app.rpc.sendCount(merged.hash)).toBe(1)
      expect(balanceOf(app, app.sponsorKey.publicKey())).toBe(paid)

      // Recorded for the organization: its members follow the submissions, and its audit trail has one row per call.
      const status = yield* must(app, "GET", `/transfers/${deposited.hash}`, owner.token)
      expect([status.status, status.source]).toEqual(["SUCCESS", account])
      const trail = yield* must(app, "GET", `/audit?actor=${account}&subjectType=transaction`, owner.token)
      const rows = (trail.items as Array<{ action: string; actor: { type: string }; subject: { id: string }; from?: string; to?: string }>)
        .map((r) => [r.action, r.actor.type, r.subject.id, r.from, r.to])
      expect(rows.sort()).toEqual([
        ["token.deposit", "member", deposited.hash, undefined, undefined],
        ["token.merge", "member", merged.hash, undefined, undefined],
        ["token.register", "member", registered.hash, undefined, undefined]
      ])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 300_000)

  it.effect("a contractor registers, merges what it was sent and withdraws, with no XLM; no deposit of its own", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const owner = yield* walletEmployer(app, "Contractor Co")
      const key = Keypair.random()
      const account = key.publicKey()
      app.rpc.setAccount({ id: account, balance: 0n })
      yield* must(app, "POST", "/contractors", owner.token, { name: "Ada", address: account })
      const token = yield* signIn(app, key)
      const wallet = yield* walletFor(app, key)

      const register = signedBy(app, yield* prepare(app, key, { fn: "register", account, auditorId: 0, data: yield* wallet.proveRegister() }), key)
      expect((yield* submit(app, token, register)).status).toBe("SUCCESS")

      // The owner funds the contractor's receiving balance from its own wallet: a deposit into another account is no
      // call the route sponsors (422 `arguments`), so the owner sends it itself, paying its fee.
      tokenOf(app).mintUnderlying(owner.wallet.publicKey(), 300n)
      const gift = yield* prepare(app, owner.wallet, { fn: "deposit", from: owner.wallet.publicKey(), to: account, amount: 300n })
      const refused = yield* post(app, owner.token, signedBy(app, gift, owner.wallet))
      expect([refused.status, refused.body._tag, refused.body.rule]).toEqual([422, "SponsorRefused", "arguments"])
      expect(yield* signAndSend(new rpc.Server(app.rpc.url, { allowHttp: true }), gift, owner.wallet)).toBe("SUCCESS")
      expect(yield* syncUntil(app, wallet, (b) => b.receiving === 300n)).toEqual({ spendable: 0n, receiving: 300n })

      // A contractor's own deposit is not sponsored (403), whatever it would move.
      tokenOf(app).mintUnderlying(account, 50n)
      const deposit = yield* prepare(app, key, { fn: "deposit", from: account, to: account, amount: 50n })
      const noDeposit = yield* post(app, token, signedBy(app, deposit, key))
      expect([noDeposit.status, noDeposit.body._tag]).toEqual([403, "Forbidden"])
      expect(noDeposit.body.error).toContain("contractor")

      // POST /contractor/register still sponsors a register alone: a merge there is the sponsor's refusal.
      const merge = signedBy(app, yield* prepare(app, key, { fn: "merge", account }), key)
      const elsewhere = yield* post(app, token, merge, "/contractor/register")
      expect([elsewhere.status, elsewhere.body.rule]).toEqual([422, "function"])

      expect((yield* submit(app, token, merge)).status).toBe("SUCCESS")
      expect(yield* syncUntil(app, wallet, (b) => b.spendable === 300n)).toEqual({ spendable: 300n, receiving: 0n })
      const data = yield* wallet.proveWithdraw(100n)
      const withdraw = signedBy(app, yield* prepare(app, key, { fn: "withdraw", from: account, to: account, amount: 100n, data }), key)
      const withdrawn = yield* submit(app, token, withdraw)
      expect(withdrawn.status).toBe("SUCCESS")
      expect(tokenOf(app).underlyingBalance(account)).toBe(150n)
      expect(yield* syncUntil(app, wallet, (b) => b.spendable === 200n)).toEqual({ spendable: 200n, receiving: 0n })
      expect(balanceOf(app, account)).toBe(0n)

      // A contractor's calls are no organization's: the contractor follows them, the employer's trail has none.
      expect((yield* must(app, "GET", `/transfers/${withdrawn.hash}`, token)).status).toBe("SUCCESS")
      expect((yield* call(app, "GET", `/transfers/${withdrawn.hash}`, { token: owner.token })).status).toBe(404)
      expect((yield* must(app, "GET", `/audit?actor=${account}`, owner.token)).items).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 300_000)

  it.effect("refuses other callers, other accounts, other contracts and calls, a fee over the cap; sends none of them", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const members = yield* orgWithEveryRole(app, "Refusals Co")
      const payer = members.payer
      const sent = app.rpc.transactions.length
      const status = (reply: { status: number; body: { _tag?: string; rule?: string } }) => [reply.status, reply.body._tag, reply.body.rule]

      for (const role of ["viewer", "approver", "initiator", "admin"] as const) {
        const member = members[role]
        const reply = yield* post(app, member.token, mergeOf(app, member.wallet))
        expect(status(reply), role).toEqual([403, "Forbidden", undefined])
        expect(reply.body.error).toContain("transfers:submit")
      }
      const stranger = Keypair.random()
      app.rpc.setAccount({ id: stranger.publicKey() })
      expect(status(yield* post(app, yield* signIn(app, stranger), mergeOf(app, stranger)))).toEqual([403, "Forbidden", undefined])

      // An API key may not call it, whatever its scopes; an email session cannot sign.
      const { key } = yield* must(app, "POST", "/api-keys", members.owner.token, { name: "Treasury bot", scopes: ["transfers:submit"] })
      expect(status(yield* post(app, key, mergeOf(app, members.owner.wallet)))).toEqual([403, "Forbidden", undefined])
      const email = yield* call(app, "POST", "/auth/privy", { json: { token: yield* privyToken({ sub: "did:privy:treasurer" }) } })
      expect((yield* post(app, email.body.token, mergeOf(app, members.owner.wallet))).status).toBe(501)

      const other = Keypair.random().publicKey()
      const cases = [
        ["another account", mergeOf(app, payer.wallet, { args: [address(other)] }), 422, "arguments"],
        ["a withdrawal to another account", mergeOf(app, payer.wallet, {
          fn: "withdraw",
          args: [address(payer.wallet.publicKey()), address(other), nativeToScVal(100n, { type: "i128" }), xdr.ScVal.scvBytes(Buffer.alloc(32))]
        }), 422, "arguments"],
        ["another contract", mergeOf(app, payer.wallet, { contract: StrKey.encodeContract(randomBytes(32)) }), 422, "contract"],
        ["a transfer", innerTransfer(app, payer.wallet, { passphrase: app.rpc.networkPassphrase, register: false }), 422, "function"],
        ["no contract call", mergeOf(app, payer.wallet, { operation: Operation.bumpSequence({ bumpTo: "5" }) }), 422, "operation"],
        ["a fee over SPONSOR_MAX_INNER_FEE", mergeOf(app, payer.wallet, { fee: 100_000_000 }), 422, "fee"],
        ["another source", mergeOf(app, stranger), 403, undefined]
      ] as const
      for (const [what, signedXDR, code, rule] of cases) {
        const reply = yield* post(app, payer.token, signedXDR)
        expect([reply.status, reply.body.rule], what).toEqual([code, rule])
      }
      expect(app.rpc.transactions.length).toBe(sent)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 120_000)
})
