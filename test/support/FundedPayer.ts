// A paying wallet on the loopback token whose proofs are real, set up and paying from Node (the console's suites that
// look at what a contractor received need payouts, not the payer's page): registered, funded (the underlying minted,
// deposited and merged), and its transfers proven and sent either through the service's runner with their payoutIds
// or, for a payer the service does not know, straight to Stellar RPC.
import { expect } from "@effect/vitest"
import { type Keypair, TransactionBuilder } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { prepareCall } from "../../client/src/confidential/chain/Calls.ts"
import type { ConfidentialWallet } from "../../client/src/confidential/ConfidentialWallet.ts"
import { runSignedPayroll } from "../../client/src/PayrollClient.ts"
import type { PayoutId } from "../../src/Domain/Ids.ts"
import { sequenceOf, signAndSend, syncUntil } from "./ConfidentialProving.ts"
import { registeredWallet } from "./ProvingConsole.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"
import { tokenOf } from "./VersionedToken.ts"

export interface FundedPayer {
  readonly key: Keypair
  readonly wallet: ConfidentialWallet
  readonly send: (tx: Parameters<typeof signAndSend>[1]) => ReturnType<typeof signAndSend>
  readonly prepare: (call: Parameters<typeof prepareCall>[3]) => Effect.Effect<Awaited<ReturnType<typeof prepareCall>>>
}

/** `key` registered with the token (its own proof and fee), `amount` of the underlying deposited and merged. */
export const fundedPayer = (app: TestAppShape, key: Keypair, amount: bigint) =>
  Effect.gen(function*() {
    const { wallet, server, deployment } = yield* registeredWallet(app, key)
    const prepare = (call: Parameters<typeof prepareCall>[3]) =>
      Effect.promise(() => prepareCall(server, deployment, { account: key.publicKey(), sequence: sequenceOf(app.rpc, key.publicKey()) }, call))
    const send = (tx: Parameters<typeof signAndSend>[1]) => signAndSend(server, tx, key)
    tokenOf(app).mintUnderlying(key.publicKey(), amount)
    for (const call of [
      { fn: "deposit", from: key.publicKey(), to: key.publicKey(), amount } as const,
      { fn: "merge", account: key.publicKey() } as const
    ]) expect(yield* send(yield* prepare(call))).toBe("SUCCESS")
    yield* syncUntil(app.url, CONFIDENTIAL_TOKEN, wallet, (b) => b.spendable === amount)
    return { key, wallet, send, prepare } satisfies FundedPayer
  })

/** Payouts proven in Node and run through the service (POST /transfers/prepare, POST /transfer with each payoutId). */
export const payPayouts = (
  app: TestAppShape,
  payer: FundedPayer,
  session: string,
  items: ReadonlyArray<{ readonly payoutId: string; readonly to: string; readonly amount: bigint }>
) =>
  Effect.gen(function*() {
    const transfers = []
    for (const item of items) {
      const data = yield* payer.wallet.proveTransfer(item.to, item.amount)
      transfers.push({ to: item.to, data: Buffer.from(data).toString("base64"), payoutId: item.payoutId as PayoutId })
    }
    const results = yield* runSignedPayroll(app.url, session, transfers, {
      sign: (prepared) => {
        const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase)
        tx.sign(payer.key)
        return tx.toXDR()
      },
      pollEvery: "200 millis"
    })
    expect(results.map((r) => r.status)).toEqual(items.map(() => "SUCCESS"))
    return results
  })

/** A transfer straight to Stellar RPC, paying its own fee: a payer the service has never heard of. */
export const transferDirectly = (payer: FundedPayer, to: string, amount: bigint) =>
  Effect.gen(function*() {
    const data = yield* payer.wallet.proveTransfer(to, amount)
    const tx = yield* payer.prepare({ fn: "confidential_transfer", from: payer.key.publicKey(), to, data })
    expect(yield* payer.send(tx)).toBe("SUCCESS")
  })
