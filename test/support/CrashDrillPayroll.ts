import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import type { ContractorId, PayoutId } from "../../src/Domain/Ids.ts"
import { StellarAddress } from "../../src/Domain/Stellar.ts"
import { api } from "./Api.ts"
import { signIn } from "./Client.ts"
import { CONFIDENTIAL_TOKEN, type TestAppShape } from "./TestApp.ts"
import { walletEmployer } from "./Transfer.ts"

export interface Wallet {
  readonly keypair: Keypair
  /** The wallet's own SEP-10 session: POST /transfer takes only its own transactions. */
  readonly token: string
}

export interface ReadyPayout {
  readonly id: PayoutId
  readonly contractorId: ContractorId
  /** The contractor's registered address: the transfer paying it must name it as `to`. */
  readonly address: string
}

export interface Payroll {
  /** The owner's session: the organization's reports (transfers, jobs, batches) are read with it. */
  readonly token: string
  /** The owner first, then wallets that joined through organization invites; all exist on the loopback ledger. */
  readonly wallets: ReadonlyArray<Wallet>
  readonly batchId: string
  /** One payout per contractor, each contractor `ready` (registered on the loopback confidential token). */
  readonly payouts: ReadonlyArray<ReadyPayout>
}

/** An organization with `wallets` wallets and a `ready` batch of `payouts` payouts, set up through the typed client. */
export const crashDrillPayroll = (app: Pick<TestAppShape, "url" | "rpc">, options: { readonly wallets: number; readonly payouts: number }) =>
  Effect.gen(function*() {
    const owner = yield* walletEmployer(app, "Crash Drill Co")
    const client = yield* api(app, owner.token)
    const wallets: Array<Wallet> = [{ keypair: owner.wallet, token: owner.token }]
    for (let i = 1; i < options.wallets; i++) {
      const keypair = Keypair.random()
      app.rpc.setAccount({ id: keypair.publicKey() })
      const invite = yield* client.account.inviteEmployer({ payload: { role: "payer" } })
      const token = yield* signIn(app, keypair)
      yield* (yield* api(app, token)).account.joinOrg({ path: { token: invite.token } })
      wallets.push({ keypair, token })
    }
    const contractors: Array<{ readonly id: ContractorId; readonly address: string }> = []
    for (let i = 0; i < options.payouts; i++) {
      const address = Keypair.random().publicKey()
      app.rpc.registerConfidential(CONFIDENTIAL_TOKEN, address)
      const created = yield* client.contractors.create({ payload: { name: `Contractor ${i}`, address: StellarAddress.make(address) } })
      if (created.status !== "ready") return yield* Effect.dieMessage(`contractor ${i} is ${created.status}, not ready`)
      contractors.push({ id: created.id, address })
    }
    const batch = yield* client.batches.create({ payload: { name: "Crash drill month" } })
    const added = yield* client.batches.addPayouts({ path: { id: batch.id }, payload: { contractorIds: contractors.map((c) => c.id) } })
    yield* client.batches.ready({ path: { id: batch.id } })
    const payouts = contractors.map((c): ReadyPayout => {
      const payout = added.find((p) => p.contractorId === c.id)
      if (payout === undefined) throw new Error(`no payout for contractor ${c.id}`)
      return { id: payout.id, contractorId: c.id, address: c.address }
    })
    return { token: owner.token, wallets, batchId: batch.id, payouts } satisfies Payroll
  }).pipe(Effect.orDie)
