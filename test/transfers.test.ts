import { expect, layer } from "@effect/vitest"
import { Account, Address, FeeBumpTransaction, Keypair, MuxedAccount, Networks, Operation, StrKey, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { call } from "./support/Client.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { transferData } from "./support/ConfidentialData.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"
import { innerTransfer, postTransfer, walletEmployer } from "./support/Transfer.ts"

const CAP = 100_000

const addressVal = (address: string) => Address.fromString(address).toScVal()

const invocation = (contract: string, fn: string, args: ReadonlyArray<xdr.ScVal>, subInvocations: Array<xdr.SorobanAuthorizedInvocation> = []) =>
  new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({ contractAddress: Address.fromString(contract).toScAddress(), functionName: fn, args: [...args] })
    ),
    subInvocations
  })

const sourceAuth = (root: xdr.SorobanAuthorizedInvocation) =>
  new xdr.SorobanAuthorizationEntry({ credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(), rootInvocation: root })

const addressAuth = (address: string, root: xdr.SorobanAuthorizedInvocation) =>
  new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(new xdr.SorobanAddressCredentials({
      address: Address.fromString(address).toScAddress(), nonce: 1n, signatureExpirationLedger: 10_000, signature: xdr.ScVal.scvVoid()
    })),
    rootInvocation: root
  })

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

    it.effect("the source is checked before the signature: a foreign envelope with no valid signature is 403", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { token } = yield* walletEmployer(app)
        const other = Keypair.random()
        app.rpc.setAccount({ id: other.publicKey() })
        const unsigned = innerTransfer(app, other, { signer: Keypair.random() })
        const res = yield* postTransfer(app, token, unsigned)
        expect(res.status).toBe(403)
        expect(res.body.error).toContain("source account must be the signed-in account")
        // Not even an RPC outage (the signature check would read the account's signers) turns it into a 502.
        app.rpc.setFault({ kind: "http500" })
        expect((yield* postTransfer(app, token, unsigned)).status).toBe(403)
        app.rpc.setFault(null)
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

    it.effect("confidential_transfer(from, to, data) exactly: any other argument list is 422 rule arguments", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const from = addressVal(wallet.publicKey())
        const to = addressVal(Keypair.random().publicKey())
        const data = xdr.ScVal.scvBytes(transferData())
        const cases: Array<[string, ReadonlyArray<xdr.ScVal>]> = [
          ["two arguments", [from, to]],
          ["four arguments", [from, to, data, data]],
          ["from is another account", [addressVal(Keypair.random().publicKey()), to, data]],
          ["to is not an address", [from, data, data]],
          ["data is not bytes", [from, to, xdr.ScVal.scvVec([data])]],
          ["data is a string", [from, to, xdr.ScVal.scvString("proof")]],
          ["arguments swapped", [to, from, data]]
        ]
        for (const [name, args] of cases) {
          const res = yield* postTransfer(app, token, innerTransfer(app, wallet, { args }))
          expect(res.status, name).toBe(422)
          expect(res.body.rule, name).toBe("arguments")
        }
        const toContract = yield* postTransfer(app, token, innerTransfer(app, wallet, { to: StrKey.encodeContract(randomBytes(32)) }))
        expect(toContract.status).toBe(200)
      }))

    it.effect("authorization entries may only be the sender's own, for this very call, with nothing beneath: else 422 rule auth", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const to = Keypair.random().publicKey()
        const args = [addressVal(wallet.publicKey()), addressVal(to), xdr.ScVal.scvBytes(transferData())]
        const call_ = invocation(CONFIDENTIAL_TOKEN, "confidential_transfer", args)
        const stranger = Keypair.random().publicKey()
        const usdc = StrKey.encodeContract(randomBytes(32))
        const refused: Array<[string, Array<xdr.SorobanAuthorizationEntry>]> = [
          ["another account's authorization", [addressAuth(stranger, call_)]],
          ["the sender authorizing another function", [sourceAuth(invocation(usdc, "transfer", args))]],
          ["the sender authorizing other arguments", [sourceAuth(invocation(CONFIDENTIAL_TOKEN, "confidential_transfer", [args[0]!, addressVal(stranger), args[2]!]))]],
          ["a sub-invocation", [sourceAuth(invocation(CONFIDENTIAL_TOKEN, "confidential_transfer", args, [invocation(usdc, "transfer", args)]))]],
          ["the sender's own plus a stranger's", [sourceAuth(call_), addressAuth(stranger, call_)]]
        ]
        for (const [name, auth] of refused) {
          const res = yield* postTransfer(app, token, innerTransfer(app, wallet, { to, args, auth }))
          expect(res.status, name).toBe(422)
          expect(res.body.rule, name).toBe("auth")
        }
        const own = yield* postTransfer(app, token, innerTransfer(app, wallet, { to, args, auth: [sourceAuth(call_)] }))
        expect(own.status).toBe(200)
      }))

    it.effect("the happy path: fee-bumped at exactly twice the inner fee, paid by the sponsor, on the ledger", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const before = app.rpc.account(wallet.publicKey())!
        const sponsorBefore = app.rpc.account(app.sponsorKey.publicKey())!
        const signedXDR = innerTransfer(app, wallet, { fee: 1001 })
        expect(Buffer.from(signedXDR, "base64").length).toBeGreaterThan(15_000) // a real-size transfer, ~15 KB of proof
        const res = yield* postTransfer(app, token, signedXDR)
        expect(res.status, JSON.stringify(res.body)).toBe(200)
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
        expect(status.body).toMatchObject({ hash: res.body.hash, status: "SUCCESS", source: wallet.publicKey() })
        const byInner = yield* call(app, "GET", `/transfers/${Buffer.from(bump.innerTransaction.hash()).toString("hex")}`, { token })
        expect(byInner.body.hash).toBe(res.body.hash)
        const stranger = yield* walletEmployer(app, "Stranger")
        expect((yield* call(app, "GET", `/transfers/${res.body.hash}`, { token: stranger.token })).status).toBe(404)
      }))

    it.effect("any envelope up to the network's largest transaction (132,096 bytes) is taken; a larger one is 400", () =>
      Effect.gen(function*() {
        const app = yield* TestApp
        const { wallet, token } = yield* walletEmployer(app)
        const sized = (proofBytes: number) => {
          const to = Keypair.random().publicKey()
          const args = [addressVal(wallet.publicKey()), addressVal(to), xdr.ScVal.scvBytes(transferData(proofBytes))]
          return innerTransfer(app, wallet, { to, args, auth: [sourceAuth(invocation(CONFIDENTIAL_TOKEN, "confidential_transfer", args))] })
        }
        const largest = sized(64_000)
        expect(Buffer.from(largest, "base64").length).toBeGreaterThan(128_000)
        expect(Buffer.from(largest, "base64").length).toBeLessThanOrEqual(132_096)
        const taken = yield* postTransfer(app, token, largest)
        expect(taken.status).toBe(200)
        const tooLarge = yield* postTransfer(app, token, sized(70_000))
        expect(tooLarge.status).toBe(400)
        expect(tooLarge.body.error).toMatch(/largest transaction/)
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

