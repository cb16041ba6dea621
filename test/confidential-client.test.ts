// The confidential client end to end, with real proofs: OZ's circuits (client/circuits/8af46e2c) proven with bb.js
// over Aztec Ignition's CRS, verified by the loopback token with bb.js against OZ's published verification keys, the
// public inputs assembled as storage.rs does. The employer registers, deposits, merges and pays two chained
// transfers through the service (POST /transfers/prepare, POST /transfer); the contractor's registration is
// sponsored (POST /contractor/register); both rebuild their openings from the service's archive and decrypt.
import { expect, layer } from "@effect/vitest"
import { Keypair, rpc, TransactionBuilder, xdr } from "@stellar/stellar-sdk"
import { Effect, Layer } from "effect"
import { ChainReader } from "../client/src/confidential/chain/ChainReader.ts"
import { prepareCall } from "../client/src/confidential/chain/Calls.ts"
import { makeKeyCheck } from "../client/src/confidential/Circuits.ts"
import type { ConfidentialWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { fetchAccountEvents } from "../client/src/confidential/state/ArchiveEvents.ts"
import { CreateContractor } from "../src/Domain/Contractor.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { FetchHttpClient } from "@effect/platform"
import { api } from "./support/Api.ts"
import { signIn } from "./support/Client.ts"
import {
  deploymentOf, loopbackWallet, proofVerifier, provingSetup, sequenceOf as loopbackSequence, signAndSend, syncUntil as syncWallet
} from "./support/ConfidentialProving.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive, type TestAppShape } from "./support/TestApp.ts"
import { tokenOf } from "./support/VersionedToken.ts"
import { walletEmployer } from "./support/Transfer.ts"

const ProvingApp = Layer.unwrapScoped(Effect.map(proofVerifier, (verifier) => TestAppLive({ ARCHIVE_POLL_INTERVAL: "200 millis" }, { ledgerIntervalMs: 100, verifier })))

const walletFor = (app: TestAppShape, key: Keypair) =>
  Effect.flatMap(provingSetup, (setup) => loopbackWallet(app.rpc, CONFIDENTIAL_TOKEN, setup, key))

const syncUntil = (app: TestAppShape, wallet: ConfidentialWallet, done: (b: { spendable: bigint; receiving: bigint }) => boolean) =>
  syncWallet(app.url, CONFIDENTIAL_TOKEN, wallet, done)

/** `data` with one bit of a payload field flipped: the proof no longer matches its public inputs. */
const alterField = (data: Uint8Array, name: string) => {
  const entries = (v: xdr.ScVal) => (v.type === "scvMap" ? v.map ?? [] : [])
  const key = (e: xdr.ScMapEntry) => (e.key.type === "scvSymbol" ? e.key.sym.toString() : "")
  const flip = (v: xdr.ScVal) => {
    if (v.type !== "scvBytes") throw new Error(`${name} is not bytes`)
    const bytes = Uint8Array.from(v.bytes.toBytes())
    bytes[31] = bytes[31]! ^ 1
    return xdr.ScVal.scvBytes(Buffer.from(bytes))
  }
  const rebuilt = (v: xdr.ScVal, change: (e: xdr.ScMapEntry) => xdr.ScVal) =>
    xdr.ScVal.scvMap(entries(v).map((e) => new xdr.ScMapEntry({ key: e.key, val: change(e) })))
  const value = xdr.ScVal.fromXDR(Buffer.from(data))
  const altered = rebuilt(value, (e) => (key(e) === "payload" ? rebuilt(e.val, (f) => (key(f) === name ? flip(f.val) : f.val)) : e.val))
  return Uint8Array.from(altered.toXDR())
}

const sequenceOf = (app: TestAppShape, account: string) => loopbackSequence(app.rpc, account)

// The layer's timeout covers building it (the verifier's worker); each test has its own.
layer(ProvingApp, { timeout: "300 seconds" })("the confidential client with real proofs", (it) => {
  it.effect("registers, deposits, merges, pays two chained transfers, decrypts them, withdraws", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const server = new rpc.Server(app.rpc.url, { allowHttp: true })
      const { wallet: employerKey, token: employerSession } = yield* walletEmployer(app)
      const employer = yield* walletFor(app, employerKey)
      const deployment = deploymentOf(tokenOf(app), app.rpc.networkPassphrase)

      // The employer registers itself (paying its own fee), then deposits and merges.
      const registerData = yield* employer.proveRegister()
      const register = yield* Effect.promise(() =>
        prepareCall(server, deployment, { account: employerKey.publicKey(), sequence: sequenceOf(app, employerKey.publicKey()) }, {
          fn: "register", account: employerKey.publicKey(), auditorId: 0, data: registerData
        }))
      expect(yield* signAndSend(server, register, employerKey)).toBe("SUCCESS")
      const onChain = app.rpc.confidentialAccount(CONFIDENTIAL_TOKEN, employerKey.publicKey())!
      expect(Buffer.from(onChain.viewingPublicKey).toString("hex")).toBe(employer.keys.toJSON().viewingPublicKey.slice(2))
      tokenOf(app).mintUnderlying(employerKey.publicKey(), 1_000n)
      for (const call of [
        { fn: "deposit", from: employerKey.publicKey(), to: employerKey.publicKey(), amount: 600n } as const,
        { fn: "merge", account: employerKey.publicKey() } as const
      ]) {
        const tx = yield* Effect.promise(() => prepareCall(server, deployment, { account: employerKey.publicKey(), sequence: sequenceOf(app, employerKey.publicKey()) }, call))
        expect(yield* signAndSend(server, tx, employerKey)).toBe("SUCCESS")
      }
      expect(tokenOf(app).underlyingBalance(employerKey.publicKey())).toBe(400n)
      expect(yield* syncUntil(app, employer, (b) => b.spendable === 600n)).toEqual({ spendable: 600n, receiving: 0n })

      // The contractor is added by address, signs in and has its registration sponsored.
      const contractorKey = Keypair.random()
      app.rpc.setAccount({ id: contractorKey.publicKey(), balance: 0n })
      const employerApi = yield* api(app, employerSession)
      yield* employerApi.contractors.create({ payload: new CreateContractor({ name: "Ada", address: StellarAddress.make(contractorKey.publicKey()) }) })
      const contractor = yield* walletFor(app, contractorKey)
      const contractorSession = yield* signIn(app, contractorKey)
      const contractorApi = yield* api(app, contractorSession)
      const contractorRegister = yield* Effect.promise(() =>
        prepareCall(server, deployment, { account: contractorKey.publicKey(), sequence: sequenceOf(app, contractorKey.publicKey()) }, {
          fn: "register", account: contractorKey.publicKey(), auditorId: 0, data: new Uint8Array()
        }).catch(() => undefined))
      expect(contractorRegister).toBeUndefined() // an empty proof fails the simulation: the token verifies it
      const data = yield* contractor.proveRegister()
      const signedRegister = yield* Effect.promise(() =>
        prepareCall(server, deployment, { account: contractorKey.publicKey(), sequence: sequenceOf(app, contractorKey.publicKey()) }, {
          fn: "register", account: contractorKey.publicKey(), auditorId: 0, data
        }))
      signedRegister.sign(contractorKey)
      const sponsored = yield* contractorApi.contractorPortal.register({ payload: { signedXDR: signedRegister.toXDR() } })
      expect(sponsored.status).toBe("SUCCESS")
      expect(app.rpc.account(contractorKey.publicKey())!.balance).toBe(0n) // the sponsor paid the fee

      // Two payouts proven back to back: the second on the first's new opening, before either lands.
      const first = yield* employer.proveTransfer(contractorKey.publicKey(), 150n)
      const second = yield* employer.proveTransfer(contractorKey.publicKey(), 250n)
      expect(employer.state.pending).toHaveLength(2)
      const pay = (payload: Uint8Array) =>
        Effect.gen(function*() {
          const prepared = yield* employerApi.transfers.prepare({ payload: { to: StellarAddress.make(contractorKey.publicKey()), data: Buffer.from(payload).toString("base64") } })
          const tx = TransactionBuilder.fromXDR(prepared.xdr, app.rpc.networkPassphrase)
          tx.sign(employerKey)
          return yield* employerApi.transfers.transfer({ payload: { signedXDR: tx.toXDR() } })
        })
      // Out of order, the second's proof is stale: the token refuses it already in simulation (InvalidProof).
      const early = yield* pay(second).pipe(Effect.flip)
      expect(early._tag).toBe("SimulationRefused")
      expect(JSON.stringify(early)).toContain("3506")
      expect((yield* pay(first)).status).toBe("SUCCESS")
      expect((yield* pay(second)).status).toBe("SUCCESS")

      // Each side rebuilds its openings from the archive and decrypts.
      expect(yield* syncUntil(app, contractor, (b) => b.receiving === 400n)).toEqual({ spendable: 0n, receiving: 400n })
      expect(yield* syncUntil(app, employer, (b) => b.spendable === 200n)).toEqual({ spendable: 200n, receiving: 0n })
      expect(employer.state.pending).toHaveLength(0)
      const received = contractor.received((yield* fetchAccountEvents(app.url, CONFIDENTIAL_TOKEN, contractorKey.publicKey(), undefined)).events)
      expect(received.map((r) => [r.from, r.amount])).toEqual([[employerKey.publicKey(), 150n], [employerKey.publicKey(), 250n]])

      // A payload changed after proving (v_tilde, the encrypted amount) fails verification.
      const third = yield* employer.proveTransfer(contractorKey.publicKey(), 50n)
      const altered = alterField(third, "v_tilde")
      expect(JSON.stringify(yield* pay(altered).pipe(Effect.flip))).toMatch(/3506|3507|3514/)
      yield* employer.abandon(employer.state.pending[0]!.commitment)

      // The contractor merges and withdraws 100 to their public balance (paying their own fees).
      app.rpc.setAccount({ id: contractorKey.publicKey(), balance: 100_000_000n })
      const merge = yield* Effect.promise(() =>
        prepareCall(server, deployment, { account: contractorKey.publicKey(), sequence: sequenceOf(app, contractorKey.publicKey()) }, { fn: "merge", account: contractorKey.publicKey() }))
      expect(yield* signAndSend(server, merge, contractorKey)).toBe("SUCCESS")
      expect(yield* syncUntil(app, contractor, (b) => b.spendable === 400n)).toEqual({ spendable: 400n, receiving: 0n })
      const withdrawData = yield* contractor.proveWithdraw(100n)
      const withdraw = yield* Effect.promise(() =>
        prepareCall(server, deployment, { account: contractorKey.publicKey(), sequence: sequenceOf(app, contractorKey.publicKey()) }, {
          fn: "withdraw", from: contractorKey.publicKey(), to: contractorKey.publicKey(), amount: 100n, data: withdrawData
        }))
      expect(yield* signAndSend(server, withdraw, contractorKey)).toBe("SUCCESS")
      expect(tokenOf(app).underlyingBalance(contractorKey.publicKey())).toBe(100n)
      expect(yield* syncUntil(app, contractor, (b) => b.spendable === 300n)).toEqual({ spendable: 300n, receiving: 0n })
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)), 300_000)

  it.effect("refuses to prove when the deployment's verification key is not the artifact's (VersionMismatch)", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const token = tokenOf(app)
      const reader = new ChainReader(new rpc.Server(app.rpc.url, { allowHttp: true }), deploymentOf(token, app.rpc.networkPassphrase))
      const setup = yield* provingSetup
      yield* makeKeyCheck(setup, reader)("register")
      const swapped = new ChainReader(reader.server, reader.deployment)
      swapped.verificationKey = () => reader.verificationKey("transfer")
      const refused = yield* makeKeyCheck(setup, swapped)("register").pipe(Effect.flip)
      expect(refused._tag).toBe("VersionMismatch")
      expect(refused.message).toContain("8af46e2c")
    }).pipe(Effect.scoped), 120_000)
})
