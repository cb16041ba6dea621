import { expect, layer } from "@effect/vitest"
import { FeeBumpTransaction, Keypair, Networks, Operation, StrKey, TransactionBuilder, Account, MuxedAccount } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { call } from "./support/Client.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"

const CAP = 100_000

layer(TestAppLive({ ...privyConfig, SPONSOR_MAX_INNER_FEE: String(CAP), SPONSOR_QUOTA: "3" }, { ledgerIntervalMs: 20 }))(
  "POST /transfer rules",
  (it) => {
    it.effect("an email session is 501", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const signed = yield* call(app, "POST", "/auth/privy", { json: { token: yield* privyToken() } })
        const res = yield* postTransfer(app, signed.body.token, "AAAA")
        expect(res.status).toBe(501)
        expect(res.body.error).toContain("SEP-10")
        expect((yield* call(app, "POST", "/transfer", { json: { signedXDR: "AAAA" } })).status).toBe(401)
      }))

    it.effect("garbage, truncated, fee-bump and other-network envelopes are 400", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const good = innerTransfer(app, wallet)
        const inner = TransactionBuilder.fromXDR(good, Networks.TESTNET)
        const bump = TransactionBuilder.buildFeeBumpTransaction(Keypair.random(), "2000", inner as never, Networks.TESTNET).toXDR()
        const cases: Array<[string, RegExp]> = [
          ["not base64 at all!", /not a base64 transaction envelope/],
          [good.slice(0, good.length / 2), /not a base64 transaction envelope/],
          [bump, /fee-bump envelopes are not accepted/],
          [innerTransfer(app, wallet, { passphrase: Networks.PUBLIC }), /no valid signature of its source for this network/],
          [innerTransfer(app, wallet, { operations: 2 }), /exactly one operation/]
        ]
        for (const [signedXDR, error] of cases) {
          const res = yield* postTransfer(app, token, signedXDR)
          expect(res.status, signedXDR.slice(0, 20)).toBe(400)
          expect(res.body.error).toMatch(error)
        }
      }))

    it.effect("a transaction or operation sourced by another account is 403", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const other = Keypair.random()
        app.rpc.setAccount({ id: other.publicKey() })
        const foreign = yield* postTransfer(app, token, innerTransfer(app, other))
        expect(foreign.status).toBe(403)
        expect(foreign.body.error).toContain("source account must be the signed-in account")
        const opSource = yield* postTransfer(app, token, innerTransfer(app, wallet, { opSource: other.publicKey() }))
        expect(opSource.status).toBe(403)
        expect(opSource.body.error).toContain("every operation's source")
        const muxed = new TransactionBuilder(new MuxedAccount(new Account(wallet.publicKey(), "1"), "7"), {
          fee: "1001",
          networkPassphrase: Networks.TESTNET
        }).addOperation(Operation.bumpSequence({ bumpTo: "5" })).setTimeout(60).build()
        muxed.sign(wallet)
        const viaMuxed = yield* postTransfer(app, token, muxed.toXDR())
        expect(viaMuxed.status).toBe(403)
      }))

    it.effect("the sponsor's policy refuses with 422 naming the rule", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const cases: Array<[string, string]> = [
          [innerTransfer(app, wallet, { fn: "transfer" }), "function"],
          [innerTransfer(app, wallet, { contract: StrKey.encodeContract(randomBytes(32)) }), "contract"],
          [innerTransfer(app, wallet, { fee: CAP + 1 }), "fee"],
          [innerTransfer(app, wallet, { validFor: null }), "timebounds"],
          [innerTransfer(app, wallet, { validFor: 3600 }), "timebounds"],
          [innerTransfer(app, wallet, { validFor: -10 }), "timebounds"]
        ]
        for (const [signedXDR, rule] of cases) {
          const res = yield* postTransfer(app, token, signedXDR)
          expect(res.status, rule).toBe(422)
          expect(res.body.rule).toBe(rule)
          expect(typeof res.body.error).toBe("string")
        }
        const bumpSeq = new TransactionBuilder(new Account(wallet.publicKey(), "1"), { fee: "100", networkPassphrase: Networks.TESTNET })
          .addOperation(Operation.bumpSequence({ bumpTo: "5" })).setTimeout(60).build()
        bumpSeq.sign(wallet)
        const notInvoke = yield* postTransfer(app, token, bumpSeq.toXDR())
        expect(notInvoke.status).toBe(422)
        expect(notInvoke.body.rule).toBe("operation")
      }))

    it.effect("the happy path: fee-bumped at exactly twice the inner fee, paid by the sponsor, on the ledger", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const before = app.rpc.account(wallet.publicKey())!
        const sponsorBefore = app.rpc.account(app.sponsorKey.publicKey())!
        const signedXDR = innerTransfer(app, wallet, { fee: 1001 })
        const res = yield* postTransfer(app, token, signedXDR)
        expect(res.status).toBe(200)
        expect(res.body.status).toBe("SUCCESS")
        const received = app.rpc.transaction(res.body.hash)!
        const bump = new FeeBumpTransaction(received.envelopeXdr, Networks.TESTNET)
        expect(bump.fee).toBe("2002")
        expect(bump.innerTransaction.fee).toBe("1001")
        expect(bump.feeSource).toBe(app.sponsorKey.publicKey())
        expect(bump.innerTransaction.toXDR()).toBe(signedXDR)
        expect(bump.signatures).toHaveLength(1)
        expect(app.sponsorKey.verify(bump.hash(), bump.signatures[0]!.signature.toBytes())).toBe(true)
        expect(wallet.verify(bump.innerTransaction.hash(), bump.innerTransaction.signatures[0]!.signature.toBytes())).toBe(true)
        const after = app.rpc.account(wallet.publicKey())!
        expect(after.balance).toBe(before.balance)
        expect(after.sequence).toBe(before.sequence + 1n)
        expect(app.rpc.account(app.sponsorKey.publicKey())!.balance).toBe(sponsorBefore.balance - 2002n)

        const status = yield* call(app, "GET", `/transfers/${res.body.hash}`, { token })
        expect(status.body).toMatchObject({ hash: res.body.hash, state: "success", source: wallet.publicKey() })
        const byInner = yield* call(app, "GET", `/transfers/${Buffer.from(bump.innerTransaction.hash()).toString("hex")}`, { token })
        expect(byInner.body.hash).toBe(res.body.hash)
        const stranger = yield* walletEmployer(app, "Stranger")
        expect((yield* call(app, "GET", `/transfers/${res.body.hash}`, { token: stranger.token })).status).toBe(404)
      }))

    it.effect("the quota is per source account; a fourth transfer in the window is 422", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        for (let i = 0; i < 3; i++) expect((yield* postTransfer(app, token, innerTransfer(app, wallet))).status).toBe(200)
        const refused = yield* postTransfer(app, token, innerTransfer(app, wallet))
        expect(refused.status).toBe(422)
        expect(refused.body.rule).toBe("quota")
        const other = yield* walletEmployer(app, "Other")
        expect((yield* postTransfer(app, other.token, innerTransfer(app, other.wallet))).status).toBe(200)
      }))

    it.effect("the same transaction posted again gets the same outcome without a second send", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const signedXDR = innerTransfer(app, wallet)
        const first = yield* postTransfer(app, token, signedXDR)
        const again = yield* postTransfer(app, token, signedXDR)
        expect(again.status).toBe(200)
        expect(again.body).toEqual(first.body)
        expect(app.rpc.sendCount(first.body.hash)).toBe(1)
      }))

    it.effect("an unknown payout is 404", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const res = yield* call(app, "POST", "/transfer", {
          token,
          json: { signedXDR: innerTransfer(app, wallet), payoutId: "7b0c4a43-3c5e-4c5a-9c56-1f0f6f1f7d10" }
        })
        expect(res.status).toBe(404)
        expect(res.body.error).toBe("payout not found")
      }))
  }
)

