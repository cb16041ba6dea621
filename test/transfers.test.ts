import { expect, layer } from "@effect/vitest"
import { Account, Address, FeeBumpTransaction, Keypair, MuxedAccount, Networks, Operation, StrKey, TransactionBuilder, scValToNative, xdr } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { api } from "./support/Api.ts"
import { privyConfig, privyToken } from "./support/Privy.ts"
import { PROOF_BYTES, transferData, ZK_PROOF_BYTES } from "./support/ConfidentialData.ts"
import { CONFIDENTIAL_TOKEN, TestApp } from "./support/TestApp.ts"
import { postTransfer, walletEmployer } from "./support/Transfer.ts"
import { EVENT_BYTES_FIELDS } from "./support/ConfidentialTokenVersion.ts"
import { TestAppWithToken, TOKEN_VERSIONS, tokenOf, type TokenVersion, versionedTransfer } from "./support/VersionedToken.ts"
import { PayoutId } from "../src/Domain/Ids.ts"

const CAP = 100_000

/** The typed failure `error`, checked to be the declared error tagged `tag` and narrowed to it. */
const tagged = <E extends { readonly _tag: string }, T extends E["_tag"]>(error: E, tag: T, label?: string): Extract<E, { readonly _tag: T }> => {
  expect(error._tag, label ?? String(error)).toBe(tag)
  return error as Extract<E, { readonly _tag: T }>
}

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

/** The other version: its `TransferData` is what the token on the ledger does not take. */
const otherThan = (version: TokenVersion) => TOKEN_VERSIONS.find((v) => v !== version)!

// Every rule holds whichever version of the confidential token is on the ledger: the sponsor reads `data` only as
// Bytes, and each version's own TransferData lands.
for (const version of TOKEN_VERSIONS) {
  const innerTransfer = versionedTransfer(version)
  layer(TestAppWithToken(version, { ...privyConfig, SPONSOR_MAX_INNER_FEE: String(CAP), SPONSOR_QUOTA: "3" }, { ledgerIntervalMs: 20 }))(
    `POST /transfer rules (token ${version})`,
    (it) => {
      it.effect("an email session is 501", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const anonymous = yield* api(app)
          const signed = yield* anonymous.auth.privy({ payload: { token: yield* privyToken() } })
          const client = yield* api(app, signed.token)
          const res = tagged(yield* client.transfers.transfer({ payload: { signedXDR: "AAAA" } }).pipe(Effect.flip), "NotImplemented")
          expect(res.error).toContain("SEP-10")
          const unsigned = yield* anonymous.transfers.transfer({ payload: { signedXDR: "AAAA" } }).pipe(Effect.flip)
          expect(unsigned._tag).toBe("Unauthorized")
        }))

      it.effect("garbage, truncated, fee-bump and other-network envelopes are 400", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const good = innerTransfer(app, wallet)
          const inner = TransactionBuilder.fromXDR(good, Networks.TESTNET)
          const bump = TransactionBuilder.buildFeeBumpTransaction(Keypair.random(), "2000", inner as never, Networks.TESTNET).toXDR()
          // The typed client refuses to encode text that is not base64: the server has to be shown it raw.
          const client = yield* api(app, token)
          const garbage = "not base64 at all!"
          expect((yield* client.transfers.transfer({ payload: { signedXDR: garbage } }).pipe(Effect.flip))._tag).toBe("ParseError")
          const raw = yield* postTransfer(app, token, garbage)
          expect(raw.status).toBe(400)
          expect(raw.body.error).toMatch(/not a base64 transaction envelope/)
          const cases: Array<[string, RegExp]> = [
            [good.slice(0, good.length / 2), /not a base64 transaction envelope/],
            [bump, /fee-bump envelopes are not accepted/],
            [innerTransfer(app, wallet, { passphrase: Networks.PUBLIC }), /no valid signature of its source for this network/],
            [innerTransfer(app, wallet, { operations: 2 }), /exactly one operation/]
          ]
          for (const [signedXDR, error] of cases) {
            const res = yield* client.transfers.transfer({ payload: { signedXDR } }).pipe(Effect.flip)
            expect(tagged(res, "InvalidRequest", signedXDR.slice(0, 20)).error).toMatch(error)
          }
        }))

      it.effect("a transaction or operation sourced by another account is 403", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const other = Keypair.random()
          app.rpc.setAccount({ id: other.publicKey() })
          const client = yield* api(app, token)
          const refusal = (signedXDR: string) => client.transfers.transfer({ payload: { signedXDR } }).pipe(Effect.flip)
          const foreign = tagged(yield* refusal(innerTransfer(app, other)), "Forbidden")
          expect(foreign.error).toContain("source account must be the signed-in account")
          const opSource = tagged(yield* refusal(innerTransfer(app, wallet, { opSource: other.publicKey() })), "Forbidden")
          expect(opSource.error).toContain("every operation's source")
          const muxed = new TransactionBuilder(new MuxedAccount(new Account(wallet.publicKey(), "1"), "7"), {
            fee: "1001",
            networkPassphrase: Networks.TESTNET
          }).addOperation(Operation.bumpSequence({ bumpTo: "5" })).setTimeout(60).build()
          muxed.sign(wallet)
          tagged(yield* refusal(muxed.toXDR()), "Forbidden")
        }))

      it.effect("the source is checked before the signature: a foreign envelope with no valid signature is 403", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { token } = yield* walletEmployer(app)
          const other = Keypair.random()
          app.rpc.setAccount({ id: other.publicKey() })
          const client = yield* api(app, token)
          const unsigned = innerTransfer(app, other, { signer: Keypair.random() })
          const refusal = client.transfers.transfer({ payload: { signedXDR: unsigned } }).pipe(Effect.flip)
          expect(tagged(yield* refusal, "Forbidden").error).toContain("source account must be the signed-in account")
          // Not even an RPC outage (the signature check would read the account's signers) turns it into a 502.
          app.rpc.setFault({ kind: "http500" })
          tagged(yield* refusal.pipe(Effect.ensuring(Effect.sync(() => app.rpc.setFault(null)))), "Forbidden")
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
          const client = yield* api(app, token)
          const refusal = (signedXDR: string) => client.transfers.transfer({ payload: { signedXDR } }).pipe(Effect.flip)
          for (const [signedXDR, rule] of cases) {
            const res = tagged(yield* refusal(signedXDR), "SponsorRefused", rule)
            expect(res.rule).toBe(rule)
            expect(typeof res.error).toBe("string")
          }
          const bumpSeq = new TransactionBuilder(new Account(wallet.publicKey(), "1"), { fee: "100", networkPassphrase: Networks.TESTNET })
            .addOperation(Operation.bumpSequence({ bumpTo: "5" })).setTimeout(60).build()
          bumpSeq.sign(wallet)
          expect(tagged(yield* refusal(bumpSeq.toXDR()), "SponsorRefused").rule).toBe("operation")
        }))

      it.effect("confidential_transfer(from, to, data) exactly: any other argument list is 422 rule arguments", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const from = addressVal(wallet.publicKey())
          const to = addressVal(Keypair.random().publicKey())
          const data = xdr.ScVal.scvBytes(transferData({ version }))
          const cases: Array<[string, ReadonlyArray<xdr.ScVal>]> = [
            ["two arguments", [from, to]],
            ["four arguments", [from, to, data, data]],
            ["from is another account", [addressVal(Keypair.random().publicKey()), to, data]],
            ["to is not an address", [from, data, data]],
            ["data is not bytes", [from, to, xdr.ScVal.scvVec([data])]],
            ["data is a string", [from, to, xdr.ScVal.scvString("proof")]],
            ["arguments swapped", [to, from, data]]
          ]
          const client = yield* api(app, token)
          const transfer = (signedXDR: string) => client.transfers.transfer({ payload: { signedXDR } })
          for (const [name, args] of cases) {
            const res = yield* transfer(innerTransfer(app, wallet, { args })).pipe(Effect.flip)
            expect(tagged(res, "SponsorRefused", name).rule, name).toBe("arguments")
          }
          const toContract = yield* transfer(innerTransfer(app, wallet, { to: StrKey.encodeContract(randomBytes(32)) }))
          expect(toContract.status).toBe("SUCCESS")
        }))

      it.effect("authorization entries may only be the sender's own, for this very call, with nothing beneath: else 422 rule auth", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          const args = [addressVal(wallet.publicKey()), addressVal(to), xdr.ScVal.scvBytes(transferData({ version }))]
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
          const client = yield* api(app, token)
          const transfer = (signedXDR: string) => client.transfers.transfer({ payload: { signedXDR } })
          for (const [name, auth] of refused) {
            const res = yield* transfer(innerTransfer(app, wallet, { to, args, auth })).pipe(Effect.flip)
            expect(tagged(res, "SponsorRefused", name).rule, name).toBe("auth")
          }
          const own = yield* transfer(innerTransfer(app, wallet, { to, args, auth: [sourceAuth(call_)] }))
          expect(own.status).toBe("SUCCESS")
        }))

      it.effect("the happy path: fee-bumped at exactly twice the inner fee, paid by the sponsor, on the ledger", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const before = app.rpc.account(wallet.publicKey())!
          const sponsorBefore = app.rpc.account(app.sponsorKey.publicKey())!
          const signedXDR = innerTransfer(app, wallet, { fee: 1001 })
          expect(Buffer.from(signedXDR, "base64").length).toBeGreaterThan(2 * PROOF_BYTES) // real size: the 14,592-byte proof, twice
          const client = yield* api(app, token)
          const res = yield* client.transfers.transfer({ payload: { signedXDR } })
          expect(res.status).toBe("SUCCESS")
          const received = app.rpc.transaction(res.hash)!
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

          const status = yield* client.transfers.status({ path: { hash: res.hash } })
          expect(status).toMatchObject({ hash: res.hash, status: "SUCCESS", source: wallet.publicKey() })
          const byInner = yield* client.transfers.status({ path: { hash: Buffer.from(bump.innerTransaction.hash()).toString("hex") } })
          expect(byInner.hash).toBe(res.hash)
          const stranger = yield* api(app, (yield* walletEmployer(app, "Stranger")).token)
          tagged(yield* stranger.transfers.status({ path: { hash: res.hash } }).pipe(Effect.flip), "NotFound")
        }))

      it.effect("any envelope up to the network's largest transaction (132,096 bytes) is taken; a larger one is 400", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const sized = (proofBytes: number) => {
            const to = Keypair.random().publicKey()
            const args = [addressVal(wallet.publicKey()), addressVal(to), xdr.ScVal.scvBytes(transferData({ version, proofBytes }))]
            return innerTransfer(app, wallet, { to, args, auth: [sourceAuth(invocation(CONFIDENTIAL_TOKEN, "confidential_transfer", args))] })
          }
          const largest = sized(64_000)
          expect(Buffer.from(largest, "base64").length).toBeGreaterThan(128_000)
          expect(Buffer.from(largest, "base64").length).toBeLessThanOrEqual(132_096)
          const client = yield* api(app, token)
          const taken = yield* client.transfers.transfer({ payload: { signedXDR: largest } })
          expect(taken.status).toBe("SUCCESS")
          // Past the contract's maxLength the typed client refuses to encode it: the server's 400 is checked raw.
          const tooLargeXDR = sized(70_000)
          expect((yield* client.transfers.transfer({ payload: { signedXDR: tooLargeXDR } }).pipe(Effect.flip))._tag).toBe("ParseError")
          const tooLarge = yield* postTransfer(app, token, tooLargeXDR)
          expect(tooLarge.status).toBe(400)
          expect(tooLarge.body.error).toMatch(/largest transaction/)
        }))

      it.effect("the quota is per source account; a fourth transfer in the window is 422", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const client = yield* api(app, token)
          const transfer = (signedXDR: string) => client.transfers.transfer({ payload: { signedXDR } })
          for (let i = 0; i < 3; i++) expect((yield* transfer(innerTransfer(app, wallet))).status).toBe("SUCCESS")
          const refused = tagged(yield* transfer(innerTransfer(app, wallet)).pipe(Effect.flip), "SponsorRefused")
          expect(refused.rule).toBe("quota")
          const other = yield* walletEmployer(app, "Other")
          const otherClient = yield* api(app, other.token)
          const otherRes = yield* otherClient.transfers.transfer({ payload: { signedXDR: innerTransfer(app, other.wallet) } })
          expect(otherRes.status).toBe("SUCCESS")
        }))

      it.effect("the same transaction posted again gets the same outcome without a second send", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const signedXDR = innerTransfer(app, wallet)
          const client = yield* api(app, token)
          const first = yield* client.transfers.transfer({ payload: { signedXDR } })
          const again = yield* client.transfers.transfer({ payload: { signedXDR } })
          expect(again).toEqual(first)
          expect(app.rpc.sendCount(first.hash)).toBe(1)
        }))

      it.effect("an unknown payout is 404", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const client = yield* api(app, token)
          const res = yield* client.transfers.transfer({
            payload: { signedXDR: innerTransfer(app, wallet), payoutId: PayoutId.make("7b0c4a43-3c5e-4c5a-9c56-1f0f6f1f7d10") }
          }).pipe(Effect.flip)
          expect(tagged(res, "NotFound").error).toBe("payout not found")
        }))

      it.effect("this version's TransferData is sponsored and lands, the token publishing this version's transfer event; a zero-knowledge proof's size too", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const client = yield* api(app, token)
          for (const proofBytes of [PROOF_BYTES, ZK_PROOF_BYTES]) {
            const to = Keypair.random().publicKey()
            const res = yield* client.transfers.transfer({ payload: { signedXDR: innerTransfer(app, wallet, { to, proofBytes }) } })
            expect(res.status).toBe("SUCCESS")
            const [event, ...more] = app.rpc.transaction(res.hash)!.events
            expect(more).toEqual([])
            expect(event!.topics.map((t) => scValToNative(t))).toEqual(["transfer", wallet.publicKey(), to])
            const fields = event!.data.type === "scvMap" ? (event!.data.map ?? []).map((e) => scValToNative(e.key) as string) : []
            expect(fields).toEqual([...EVENT_BYTES_FIELDS[version].transfer].sort())
          }
        }))

      it.effect("the other version's TransferData: the sponsor pays for it as for any Bytes, and the token refuses it on the ledger (3507): 422 TransferRejected", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const to = Keypair.random().publicKey()
          const args = [addressVal(wallet.publicKey()), addressVal(to), xdr.ScVal.scvBytes(transferData({ version: otherThan(version) }))]
          const client = yield* api(app, token)
          const res = yield* client.transfers.transfer({ payload: { signedXDR: innerTransfer(app, wallet, { to, args }) } }).pipe(Effect.flip)
          const rejected = tagged(res, "TransferRejected")
          const landed = app.rpc.transaction(rejected.hash)!
          expect(landed.status).toBe("FAILED")
          expect(landed.feeSource).toBe(app.sponsorKey.publicKey())
          expect(landed.hostError).toMatch(/^HostError: Error\(Contract, #3507\)\n/)
        }))

      it.effect("a frozen sender's transfer is sponsored (the sponsor does not simulate) and fails on the ledger with AccountFrozen (3601)", () =>
        Effect.gen(function*() {
          const app = yield* TestApp
          const { wallet, token } = yield* walletEmployer(app)
          const controls = tokenOf(app)
          if (controls.complianceConfig() === undefined) controls.setComplianceConfig()
          const to = Keypair.random().publicKey()
          const signedXDR = innerTransfer(app, wallet, { to })
          controls.freeze(wallet.publicKey())
          const client = yield* api(app, token)
          const rejected = tagged(yield* client.transfers.transfer({ payload: { signedXDR } }).pipe(Effect.flip), "TransferRejected")
          expect(app.rpc.transaction(rejected.hash)?.hostError).toMatch(/^HostError: Error\(Contract, #3601\)\n/)
          controls.unfreeze(wallet.publicKey())
          const again = yield* client.transfers.transfer({ payload: { signedXDR: innerTransfer(app, wallet, { to }) } })
          expect(again.status).toBe("SUCCESS")
        }))
    }
  )
}
