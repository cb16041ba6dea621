// A payroll paid through the installed package: three contractors, one batch, the signed transfers run by runPayroll.
// test/client-package.test.ts installs the package in an empty project and runs this file there; the employer's
// session token and the signed envelopes come in a JSON file named by the first argument.
import {
  AddPayouts,
  type Batch,
  CreateBatch,
  CreateContractor,
  FetchHttpClient,
  makeClient,
  type PayrollItem,
  runPayroll,
  StellarAddress
} from "@confidential-payroll/client"
import { DateTime, Effect, Option, Schedule } from "effect"
import { readFileSync } from "node:fs"

interface Input {
  readonly baseUrl: string
  readonly token: string
  readonly payees: ReadonlyArray<{ readonly name: string; readonly address: string; readonly signedXDR: string }>
}
const input = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Input

const program = Effect.gen(function*() {
  const client = yield* makeClient(input.baseUrl, input.token)
  const me = yield* client.account.me({ urlParams: {} })
  const contractors = yield* Effect.forEach(input.payees, (payee) =>
    client.contractors.create({
      payload: new CreateContractor({ name: payee.name, address: StellarAddress.make(payee.address) })
    }))
  const batch = yield* client.batches.create({ payload: new CreateBatch({ name: "November" }) })
  const payouts = yield* client.batches.addPayouts({
    path: { id: batch.id },
    payload: new AddPayouts({ contractorIds: contractors.map((c) => c.id) })
  })
  yield* client.batches.ready({ path: { id: batch.id } })
  const items: Array<PayrollItem> = input.payees.map((payee, i) => ({
    signedXDR: payee.signedXDR,
    payoutId: payouts.find((p) => p.contractorId === contractors[i]!.id)!.id
  }))
  const results = yield* runPayroll(input.baseUrl, input.token, items, { pollEvery: "100 millis" })
  // A payout settles when its transfer is final; the batch completes with its last payout.
  const done = yield* client.batches.get({ path: { id: batch.id } }).pipe(
    Effect.repeat(Schedule.recurUntil((b: Batch) => b.status === "completed").pipe(Schedule.addDelay(() => "100 millis"))),
    Effect.timeout("10 seconds")
  )
  const first = yield* client.transfers.status({ path: { hash: results[0]!.hash } })
  return {
    org: me.employer?.orgName,
    contractors: contractors.map((c) => ({ status: c.status, address: Option.getOrNull(c.address) })),
    results: results.map((r) => r.status),
    batch: {
      status: done.status,
      settled: done.settledCount,
      completedAt: Option.getOrNull(Option.map(done.completedAt, DateTime.formatIso))
    },
    ledger: first.ledger,
    recordedAt: DateTime.formatIso(first.createdAt)
  }
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise).then(
  (summary) => console.log(JSON.stringify(summary)),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
