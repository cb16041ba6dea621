import { Keypair, TransactionBuilder } from "@stellar/stellar-sdk"
import { Console, Effect, Schedule } from "effect"
import { SignedChallenge } from "../src/Auth/Api.ts"
import { makeClient } from "../client/src/Client.ts"
import type { Batch } from "../src/Domain/Batch.ts"
import { CreateOrg } from "../src/Domain/Session.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { runPayroll } from "../client/src/PayrollClient.ts"
import type { LoopbackRpc } from "../test/support/LoopbackRpc.ts"
import { progressBar } from "./ProgressBar.ts"
import { signedTransfer } from "./SignedTransfer.ts"
import { DemoFailure, step } from "./Step.ts"

const CONTRACTORS = [
  { name: "Ada Lovelace", email: "ada@example.com", rate: "4500" },
  { name: "Grace Hopper", email: "grace@example.com", rate: "4200" },
  { name: "Alan Turing", email: "alan@example.com", rate: "3900" },
  { name: "Katherine Johnson", email: "katherine@example.com", rate: "4100" },
  { name: "Edsger Dijkstra", email: "edsger@example.com", rate: "3800" }
] as const

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`

type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** SEP-10 as a wallet does it: fetch the challenge, sign it with the wallet's key, trade it for a session. */
const signIn = (url: string, wallet: Keypair) =>
  Effect.gen(function*() {
    const anonymous = yield* makeClient(url)
    const challenge = yield* anonymous.auth.sep10Challenge({ urlParams: { account: wallet.publicKey() } })
    const tx = TransactionBuilder.fromXDR(challenge.transaction, challenge.network_passphrase)
    tx.sign(wallet)
    const session = yield* anonymous.auth.sep10Verify({ payload: new SignedChallenge({ transaction: tx.toXDR() }) })
    return session.token
  })

/** A contractor whose wallet registered with the confidential token first, so the directory finds it `ready`. */
const addContractor = (client: Client, ledger: LoopbackRpc, token: string, person: (typeof CONTRACTORS)[number]) =>
  Effect.gen(function*() {
    const address = Keypair.random().publicKey()
    ledger.registerConfidential(token, address)
    const rate = { amount: person.rate, currency: "USDC" as const }
    const added = yield* client.contractors.create({
      payload: { name: person.name, email: person.email, address: StellarAddress.make(address), rate }
    })
    const contractor = added.status === "ready" ? added : yield* client.contractors.check({ path: { id: added.id } })
    yield* Console.log(`  ${contractor.name.padEnd(18)} ${short(address)}  ${contractor.status}`)
    if (contractor.status !== "ready") {
      return yield* new DemoFailure({ step: "Adding 5 contractors", reason: `${person.name} is ${contractor.status}, not ready` })
    }
    return { id: contractor.id, address }
  })

const untilCompleted = Schedule.recurUntil((batch: Batch) => batch.status === "completed").pipe(
  Schedule.addDelay(() => "200 millis")
)

/**
 * The scripted employer: a generated wallet signs in (SEP-10), creates the organization, adds five contractors who
 * registered with the confidential token, puts a payout to each in a batch, locks it, signs one real-size
 * `confidential_transfer` per payout and runs them as a payroll through the typed client (`runPayroll`), then waits
 * for the batch to complete. Returns the session and the completed batch.
 */
export const demoPayroll = (url: string, ledger: LoopbackRpc, token: string) =>
  Effect.gen(function*() {
    const wallet = Keypair.random()
    ledger.setAccount({ id: wallet.publicKey() })
    ledger.registerConfidential(token, wallet.publicKey())
    const session = yield* step(`Signing in with a new wallet ${short(wallet.publicKey())} (SEP-10)`, signIn(url, wallet))
    const client = yield* makeClient(url, session)

    const org = yield* step(
      "Creating the organization",
      client.account.createOrg({ payload: new CreateOrg({ name: "Acme Demo Co" }) })
    )
    yield* Console.log(`  ${org.name} (${org.id})`)
    const contractors = yield* step(
      "Adding 5 contractors (each registered with the confidential token)",
      Effect.forEach(CONTRACTORS, (person) => addContractor(client, ledger, token, person))
    )
    const batch = yield* step("Creating the batch with 5 payouts and locking it", Effect.gen(function*() {
      const { id } = yield* client.batches.create({ payload: { name: "Demo payroll" } })
      const contractorIds = contractors.map((c) => c.id)
      const payouts = yield* client.batches.addPayouts({ path: { id }, payload: { contractorIds } })
      const ready = yield* client.batches.ready({ path: { id } })
      yield* Console.log(`  batch ${id}: ${ready.status}, ${ready.payoutCount} payouts`)
      return { id, payouts }
    }))

    const first = ledger.account(wallet.publicKey())!.sequence
    const items = batch.payouts.map((payout, k) => ({
      payoutId: payout.id,
      signedXDR: signedTransfer({
        wallet,
        to: contractors.find((c) => c.id === payout.contractorId)!.address,
        token,
        sequence: first + BigInt(k),
        passphrase: ledger.networkPassphrase,
        validForSeconds: 300
      })
    }))
    const kib = Math.round(items.reduce((sum, item) => sum + item.signedXDR.length, 0) / items.length / 1024)
    const bar = progressBar()
    const results = yield* step(
      `Running the payroll: ${items.length} signed confidential_transfer envelopes (~${kib} KiB of base64 each) through runPayroll`,
      runPayroll(url, session, items, { onProgress: bar.onProgress, pollEvery: "250 millis" }).pipe(
        Effect.ensuring(Effect.sync(bar.done))
      )
    )
    const failed = results.filter((r) => r.status !== "SUCCESS")
    if (failed.length > 0) {
      const reason = failed.map((r) => `transfer ${r.i}: ${r.status} ${r.error ?? ""}`).join("\n          ")
      return yield* new DemoFailure({ step: "Running the payroll", reason })
    }

    const completed = yield* step(
      "Waiting for the batch to complete",
      client.batches.get({ path: { id: batch.id } }).pipe(
        Effect.repeat(untilCompleted),
        Effect.timeoutFail({
          duration: "20 seconds",
          onTimeout: () =>
            new DemoFailure({ step: "Waiting for the batch", reason: "not completed 20 s after every transfer was final" })
        })
      )
    )
    const { status, settledCount, payoutCount, failedCount } = completed
    yield* Console.log(`  ${status}: ${settledCount}/${payoutCount} settled, ${failedCount} failed`)
    return { session, batch: completed, hashes: results.map((r) => r.hash) }
  })
