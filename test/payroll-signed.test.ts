import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Address, FeeBumpTransaction, Keypair, Networks, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { type PayrollTransfer, runPayroll, type SigningProgress } from "../client/src/PayrollClient.ts"
import { api } from "./support/Api.ts"
import { transferData } from "./support/ConfidentialData.ts"
import type { LoopbackRpc } from "./support/LoopbackRpc.ts"
import { CONFIDENTIAL_TOKEN, TestApp, TestAppLive } from "./support/TestApp.ts"
import { walletEmployer } from "./support/Transfer.ts"

// Issue 16 §2: runPayroll with a signer prepares (POST /transfers/prepare), signs (stock stellar-sdk) and submits each
// transfer when its turn comes, one per ledger from one account; faults along the way are retried or followed, never
// lost or paid twice.

const TRANSFERS = 40
const BUMP_AT = 5 // another transaction of the account lands between prepare and submit: txBadSeq, prepared again
const OUTAGE_AT = 12 // the send fails (four tries): 502 with the hash, followed until the reconciler lands it
const UNREGISTERED_AT = 20 // the recipient never registered: the host refuses (3501)
const SIGNER_FAILS_AT = 27 // the signer throws (a wallet that declined)

const FAST = { RECONCILE_INTERVAL: "200 millis", TRANSFER_POLL_MARGIN: "1 second", STELLAR_RPC_TIMEOUT: "1 second" }

/** The recipient (`to`) of each transfer from `source` the ledger applied successfully. */
const landedRecipients = (rpc: LoopbackRpc, source: string) =>
  rpc.transactions.filter((t) => t.source === source && t.status === "SUCCESS").map((t) => {
    const tx = TransactionBuilder.fromXDR(t.envelopeXdr, Networks.TESTNET)
    const inner = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx
    const op = inner.operations[0]
    if (op?.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") throw new Error("not a contract call")
    return Address.fromScVal(op.func.invokeContract.args[1]!).toString()
  })

layer(TestAppLive(FAST, { ledgerIntervalMs: 50 }), { excludeTestServices: true })("runPayroll with a signer", (it) => {
  it.effect("prepares, signs and submits just in time: faults retried or followed, refusals reported, each payment landed once", () =>
    Effect.gen(function*() {
      const app = yield* TestApp
      const { wallet, token } = yield* walletEmployer(app)
      app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, wallet.publicKey())
      const recipients = Array.from({ length: TRANSFERS }, () => Keypair.random().publicKey())
      recipients.forEach((to, k) => k === UNREGISTERED_AT || app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, to))

      // Three of them pay payouts of a ready batch.
      const client = yield* api(app, token)
      const linked = [0, 1, 2]
      const contractors = yield* Effect.forEach(linked, (k) =>
        client.contractors.create({ payload: { name: `Payee ${k}`, address: StellarAddress.make(recipients[k]!) } }))
      const batch = yield* client.batches.create({ payload: { name: "December" } })
      const payouts = yield* client.batches.addPayouts({ path: { id: batch.id }, payload: { contractorIds: contractors.map((c) => c.id) } })
      yield* client.batches.ready({ path: { id: batch.id } })
      const payoutOf = new Map(payouts.map((p) => [String(p.contractorId), p.id]))

      const items: Array<PayrollTransfer> = recipients.map((to, k) => {
        const payoutId = k < contractors.length ? payoutOf.get(String(contractors[k]!.id)) : undefined
        return { to, data: Buffer.from(transferData()).toString("base64"), ...(payoutId === undefined ? {} : { payoutId }) }
      })

      const signed = new Map<number, number>()
      let bumped = false
      let outage = false
      const sign = (prepared: { xdr: string; networkPassphrase: string }) => {
        const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
        if (!("sequence" in tx)) throw new Error("a fee-bump came back")
        const op = tx.operations[0]
        if (op?.type !== "invokeHostFunction" || op.func.type !== "hostFunctionTypeInvokeContract") throw new Error("not a contract call")
        const k = recipients.indexOf(Address.fromScVal(op.func.invokeContract.args[1]!).toString())
        signed.set(k, (signed.get(k) ?? 0) + 1)
        if (k === SIGNER_FAILS_AT) throw new Error("the wallet declined")
        if (k === BUMP_AT && !bumped) {
          bumped = true
          const account = app.rpc.account(wallet.publicKey())!
          app.rpc.setAccount({ id: wallet.publicKey(), sequence: account.sequence + 1n })
        }
        if (k === OUTAGE_AT && !outage) {
          outage = true
          app.rpc.setFault({ kind: "http500" }, { methods: ["sendTransaction"], times: 4 })
        }
        tx.sign(wallet)
        return tx.toXDR()
      }

      const progress: Array<SigningProgress> = []
      const started = Date.now()
      const results = yield* runPayroll(app.url, token, items, {
        sign,
        validFor: 30,
        pollEvery: "100 millis",
        onProgress: (p) => progress.push(p)
      }).pipe(Effect.provide(FetchHttpClient.layer))
      const seconds = (Date.now() - started) / 1000

      expect(results.map((r) => r.i)).toEqual(recipients.map((_, k) => k))
      const byStatus = (status: string) => results.filter((r) => r.status === status).map((r) => r.i)
      expect(byStatus("REFUSED")).toEqual([UNREGISTERED_AT])
      expect(results[UNREGISTERED_AT]!.error).toContain("AccountNotRegistered")
      expect(byStatus("ERROR")).toEqual([SIGNER_FAILS_AT])
      expect(results[SIGNER_FAILS_AT]!.error).toContain("the wallet declined")
      expect(byStatus("SUCCESS")).toHaveLength(TRANSFERS - 2)
      // The bumped one was signed twice (its first was rejected txBadSeq and can never land); every other once.
      expect(signed.get(BUMP_AT)).toBe(2)
      expect([...signed.entries()].filter(([k, n]) => k !== BUMP_AT && n !== 1)).toEqual([])

      // The ledger: every payment that succeeded landed exactly once, nothing else landed.
      const landed = landedRecipients(app.rpc, wallet.publicKey())
      expect(landed.toSorted()).toEqual(byStatus("SUCCESS").map((k) => recipients[k]!).toSorted())
      expect(progress.at(-1)).toMatchObject({ items: TRANSFERS, itemsDone: TRANSFERS })

      const { items: paid } = yield* client.batches.payouts({ path: { id: batch.id }, urlParams: {} })
      expect(paid.map((p) => p.status)).toEqual(["settled", "settled", "settled"])
      console.log(`[payroll signed] ${TRANSFERS} transfers from one account on 50 ms ledgers in ${seconds.toFixed(1)} s: ` +
        `${TRANSFERS - 2} SUCCESS, 1 REFUSED (unregistered), 1 ERROR (signer declined); 1 prepared again after txBadSeq, ` +
        `1 followed after a 502; ${landed.length} landed, each once`)
    }), 60_000)
})
