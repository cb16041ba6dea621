import { type Keypair, TransactionBuilder } from "@stellar/stellar-sdk"
import { Console, Duration, Effect, Schedule } from "effect"
import { SignedChallenge } from "../src/Auth/Api.ts"
import { makeClient } from "../client/src/Client.ts"
import type { ProvingSetup } from "../client/src/confidential/Circuits.ts"
import type { ConfidentialWallet } from "../client/src/confidential/ConfidentialWallet.ts"
import { fetchAccountEvents } from "../client/src/confidential/state/ArchiveEvents.ts"
import type { Batch } from "../src/Domain/Batch.ts"
import { CreateOrg } from "../src/Domain/Session.ts"
import { StellarAddress } from "../src/Domain/Stellar.ts"
import { runSignedPayroll } from "../client/src/PayrollClient.ts"
import { amountText as usdc, type DemoNetwork, sendCall, signedCall, UNIT } from "./DemoNetwork.ts"
import { demoWallet, syncUntil } from "./DemoWallets.ts"
import { progressBar } from "./ProgressBar.ts"
import { DemoFailure, step } from "./Step.ts"

/** Amounts in the token's units: USDC has 7 decimals. */
export const CONTRACTORS = [
  { name: "Ada Lovelace", email: "ada@example.com", rate: "4500", amount: 4_500n * UNIT },
  { name: "Grace Hopper", email: "grace@example.com", rate: "4200", amount: 4_200n * UNIT },
  { name: "Alan Turing", email: "alan@example.com", rate: "3900", amount: 3_950n * UNIT },
  { name: "Katherine Johnson", email: "katherine@example.com", rate: "4100", amount: 4_100n * UNIT },
  { name: "Edsger Dijkstra", email: "edsger@example.com", rate: "3800", amount: 3_725n * UNIT + 5_000_000n }
] as const
type Person = { readonly name: string; readonly email: string; readonly rate: string; readonly amount: bigint }

/** The five contractors, paid what the network says (small amounts on a real network), else the demo's own amounts. */
export const contractorsOn = (network: DemoNetwork): ReadonlyArray<Person> =>
  CONTRACTORS.map((c, i) => ({ ...c, amount: network.amounts?.[i] ?? c.amount }))

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

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

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([duration, a]) => [a, Duration.toMillis(duration)] as const)

/**
 * A contractor: added by address (`invited`: not registered yet), then their own client registers their wallet with
 * the token — keys from their wallet's signature, a register proof — and the service sponsors it
 * (POST /contractor/register), so they need no XLM; the employer checks the directory, which finds them `ready`.
 */
const addContractor = (url: string, network: DemoNetwork, setup: ProvingSetup, session: string, person: Person, key: Keypair) =>
  Effect.gen(function*() {
    const client = yield* makeClient(url, session)
    const added = yield* client.contractors.create({
      payload: { name: person.name, email: person.email, address: StellarAddress.make(key.publicKey()), rate: { amount: person.rate, currency: "USDC" } }
    })
    const wallet = yield* demoWallet(network, setup, key)
    const [data, ms] = yield* timed(wallet.proveRegister())
    const signed = yield* signedCall(network, key, { fn: "register", account: key.publicKey(), auditorId: network.auditorId, data })
    const own = yield* makeClient(url, yield* signIn(url, key))
    yield* own.contractorPortal.register({ payload: { signedXDR: signed.toXDR() } })
    const contractor = yield* client.contractors.check({ path: { id: added.id } })
    yield* Console.log(`  ${contractor.name.padEnd(18)} ${short(key.publicKey())}  register proven in ${seconds(ms)}, sponsored  ${added.status} → ${contractor.status}`)
    if (contractor.status !== "ready") {
      return yield* new DemoFailure({ step: "Adding 5 contractors", reason: `${person.name} is ${contractor.status}, not ready` })
    }
    return { id: contractor.id, key, wallet, person }
  })

const untilCompleted = Schedule.recurUntil((batch: Batch) => batch.status === "completed").pipe(
  Schedule.addDelay(() => "200 millis")
)

/**
 * The scripted employer and contractors, each with the confidential client: the employer signs in (SEP-10), creates
 * the organization, registers its wallet with the token (a register proof), gets the payroll's total into its
 * confidential balance (the network's `fundEmployer`: on the loopback it deposits it itself, on a network the funder
 * deposits it) and merges it; five contractors register (proven by them, sponsored by the service); a batch pays each,
 * every payout a `confidential_transfer` proven on the previous one's new balance and run through `runSignedPayroll`
 * (prepared by the service, signed by the wallet); each contractor then decrypts what they received from the chain's
 * events, read back through the service's archive. The accounts exist already (`network.createAccounts`). Returns
 * the session, the completed batch and the transfers' hashes.
 */
export const demoPayroll = (
  url: string,
  network: DemoNetwork,
  setup: ProvingSetup,
  accounts: { readonly employer: Keypair; readonly contractors: ReadonlyArray<Keypair> }
) =>
  Effect.gen(function*() {
    const key = accounts.employer
    const token = network.deployment.contract
    const people = contractorsOn(network)
    const TOTAL = people.reduce((sum, c) => sum + c.amount, 0n)
    const session = yield* step(`Signing in with a new wallet ${short(key.publicKey())} (SEP-10)`, signIn(url, key))
    const client = yield* makeClient(url, session)
    const org = yield* step("Creating the organization", client.account.createOrg({ payload: new CreateOrg({ name: "Acme Demo Co" }) }))
    yield* Console.log(`  ${org.name} (${org.id})`)

    const employer: ConfidentialWallet = yield* step(
      `Registering the employer's wallet with the token, ${network.fundingTitle(usdc(TOTAL))}`,
      Effect.gen(function*() {
        const wallet = yield* demoWallet(network, setup, key)
        const [data, ms] = yield* timed(wallet.proveRegister())
        yield* sendCall(network, key, { fn: "register", account: key.publicKey(), auditorId: network.auditorId, data })
        yield* network.fundEmployer(key, TOTAL)
        yield* sendCall(network, key, { fn: "merge", account: key.publicKey() })
        const balances = yield* syncUntil(url, token, wallet, (b) => b.spendable === TOTAL)
        yield* Console.log(`  register proven in ${seconds(ms)}; confidential balance ${usdc(balances.spendable)} USDC, decrypted from the chain`)
        return wallet
      })
    )
    const contractors = yield* step(
      "Adding 5 contractors (each registers with the token from their own wallet, sponsored by the service)",
      Effect.forEach(people, (person, i) => addContractor(url, network, setup, session, person, accounts.contractors[i]!))
    )
    const batch = yield* step("Creating the batch with 5 payouts and locking it", Effect.gen(function*() {
      const { id } = yield* client.batches.create({ payload: { name: "Demo payroll" } })
      const payouts = yield* client.batches.addPayouts({ path: { id }, payload: { contractorIds: contractors.map((c) => c.id) } })
      const ready = yield* client.batches.ready({ path: { id } })
      yield* Console.log(`  batch ${id}: ${ready.status}, ${ready.payoutCount} payouts`)
      return { id, payouts }
    }))

    const transfers = yield* step("Proving 5 confidential transfers, each on the previous one's new balance", Effect.forEach(batch.payouts, (payout) =>
      Effect.gen(function*() {
        const to = contractors.find((c) => c.id === payout.contractorId)!
        const [data, ms] = yield* timed(employer.proveTransfer(to.key.publicKey(), to.person.amount))
        yield* Console.log(`  ${to.person.name.padEnd(18)} ${usdc(to.person.amount).padStart(16)} USDC  proven in ${seconds(ms)}`)
        return { to: to.key.publicKey(), data: Buffer.from(data).toString("base64"), payoutId: payout.id }
      })))
    const bar = progressBar()
    const results = yield* step(
      `Running the payroll: ${transfers.length} proven transfers, each prepared by the service, signed by the wallet, sponsored (runSignedPayroll)`,
      runSignedPayroll(url, session, transfers, {
        sign: (prepared) => {
          const tx = TransactionBuilder.fromXDR(prepared.xdr, network.networkPassphrase)
          tx.sign(key)
          return tx.toXDR()
        },
        onProgress: (p) => bar.onProgress({ items: p.items, itemsDone: p.itemsDone, jobs: 1, jobsDone: p.itemsDone === p.items ? 1 : 0 }),
        pollEvery: "250 millis"
      }).pipe(Effect.ensuring(Effect.sync(bar.done)))
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
          onTimeout: () => new DemoFailure({ step: "Waiting for the batch", reason: "not completed 20 s after every transfer was final" })
        })
      )
    )
    const { status, settledCount, payoutCount, failedCount } = completed
    yield* Console.log(`  ${status}: ${settledCount}/${payoutCount} settled, ${failedCount} failed`)

    yield* step("Each contractor decrypts what they received (their keys, the chain's events from the service's archive)", Effect.forEach(contractors, (c) =>
      Effect.gen(function*() {
        const balances = yield* syncUntil(url, token, c.wallet, (b) => b.receiving === c.person.amount)
        const received = c.wallet.received((yield* fetchAccountEvents(url, token, c.key.publicKey(), undefined)).events)
        const amount = received.reduce((sum, r) => sum + r.amount, 0n)
        const same = amount === c.person.amount && balances.receiving === amount
        yield* Console.log(`  ${c.person.name.padEnd(18)} sent ${usdc(c.person.amount).padStart(16)}  received ${usdc(amount).padStart(16)}  ${same ? "✓" : "✗"}`)
        if (!same) return yield* new DemoFailure({ step: "Decrypting", reason: `${c.person.name} decrypted ${usdc(amount)}, not ${usdc(c.person.amount)}` })
      })))
    const left = yield* syncUntil(url, token, employer, (b) => b.spendable === 0n)
    yield* Console.log(`  the employer's confidential balance: ${usdc(left.spendable)} USDC`)
    return { session, batch: completed, hashes: results.map((r) => r.hash) }
  })
