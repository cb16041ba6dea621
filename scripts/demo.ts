// `npm run demo`: a payroll you can watch, offline. The loopback ledger (with the emulated confidential token), the
// real service as a child process on a temporary embedded database, and a scripted employer paying five contractors
// through the typed client. Everything it starts is stopped and removed when it ends, Ctrl-C included.
//   npm run demo              runs it and stops
//   npm run demo -- --keep    leaves the service and the ledger running until Ctrl-C, to look around
// With DEMO_FUNDER_SECRET (and STELLAR_RPC_URL, NETWORK_PASSPHRASE, CONFIDENTIAL_TOKEN_CONTRACT; optionally
// CONFIDENTIAL_AUDITOR_ID, CRS_DIR, and the registries the token names, CONFIDENTIAL_AUDITOR_CONTRACT and
// CONFIDENTIAL_VERIFIER_CONTRACT, checked against it) it runs the same on that network instead, starting no ledger of
// its own, the funder creating its accounts and funding the employer: the testnet smoke test.
import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Keypair } from "@stellar/stellar-sdk"
import { Cause, Console, Effect, Exit, Schema } from "effect"
import { Batch } from "../src/Domain/Batch.ts"
import { type DemoAccount, demoMode, externalNetwork, loopbackNetwork } from "./DemoNetwork.ts"
import { type DemoService, demoService } from "./DemoService.ts"
import { CONTRACTORS, demoPayroll } from "./DemoPayroll.ts"
import { DemoFailure, explain, step } from "./Step.ts"

const LEDGER_MS = 1_000
const keep = process.argv.includes("--keep")
let finished = false

const mode = demoMode(process.env)
if (mode.mode === "refused") {
  console.error(mode.line)
  process.exit(1)
}

/** The end of what the service logged, when the payroll went wrong, and whether it is still running. */
const serviceLog = (service: DemoService) => {
  const ended = service.ended()
  const lines = service.output().trimEnd().split("\n").slice(-15).join("\n")
  return `\nThe service's last log lines:\n${lines}${ended === undefined ? "" : `\nThe service has ended (${ended}).`}`
}

/** On the loopback, five minutes is generous; a real network's ledgers (~5 s each, ~15 transactions) take longer. */
const PAYROLL_MINUTES = mode.mode === "network" ? 10 : 5

const demo = Effect.gen(function*() {
  const started = Date.now()
  const network = yield* (mode.mode === "network" ? externalNetwork(mode.settings) : loopbackNetwork(LEDGER_MS))
  const keys = {
    employer: Keypair.random(),
    sponsor: Keypair.random(),
    faucet: Keypair.random(),
    contractors: CONTRACTORS.map(() => Keypair.random())
  }
  const balances = network.startingBalances
  const accounts: Array<DemoAccount> = [
    { role: "employer", account: keys.employer.publicKey(), startingBalance: balances.employer },
    { role: "sponsor", account: keys.sponsor.publicKey(), startingBalance: balances.sponsor },
    ...(balances.faucet === undefined ? [] : [{ role: "faucet", account: keys.faucet.publicKey(), startingBalance: balances.faucet }]),
    ...CONTRACTORS.map((c, i) => ({ role: c.name, account: keys.contractors[i]!.publicKey(), startingBalance: balances.contractor }))
  ]
  yield* network.createAccounts(accounts)
  const service = yield* step(
    "Starting the service (node src/Server/main.ts, embedded PostgreSQL in a temporary DATA_DIR)",
    demoService(network, keys)
  )
  yield* Console.log(`  ${service.url} (pid ${service.pid}, DATA_DIR ${service.dataDir})`)
  const setup = yield* step(network.provingTitle, network.provingSetup)
  const { session, batch, hashes } = yield* demoPayroll(service.url, network, setup, keys).pipe(
    Effect.timeoutFail({
      duration: `${PAYROLL_MINUTES} minutes`,
      onTimeout: () => new DemoFailure({ step: "Running the demo payroll", reason: `not done within ${PAYROLL_MINUTES} minutes` })
    }),
    Effect.tapErrorCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : Console.error(serviceLog(service)))
  )
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  const running = network.kind === "loopback" ? " and the ledger" : ""
  yield* Console.log([
    "",
    `✓ Done in ${seconds} s: batch ${batch.id} is ${batch.status}, ${hashes.length} proven transfers on the ledger, each verified by the token.`,
    "",
    "Where to look:",
    `  API docs     ${service.url}/docs   (the OpenAPI document: ${service.url}/openapi.json)`,
    `  the batch    GET ${service.url}/batches/${batch.id}`,
    `               ${JSON.stringify(Schema.encodeSync(Batch)(batch))}`,
    `  its payouts  GET ${service.url}/batches/${batch.id}/payouts`,
    keep
      ? `  with curl    curl -s ${service.url}/batches/${batch.id} -H "authorization: Bearer ${session}"`
      : `  The service stops now: \`npm run demo -- --keep\` keeps it${running} running to look around.`,
    ""
  ].join("\n"))
  finished = true
  if (keep) {
    yield* Console.log(`The service${running} keep${network.kind === "loopback" ? "" : "s"} running (the session token above lasts an hour): Ctrl-C to stop ${network.kind === "loopback" ? "them" : "it"}.`)
    return yield* Effect.never
  }
}).pipe(
  Effect.scoped,
  Effect.provide(FetchHttpClient.layer),
  Effect.onExit((exit) =>
    Exit.isSuccess(exit)
      ? Effect.void
      : Cause.isInterruptedOnly(exit.cause)
      ? Console.error(finished ? "Stopped." : "Interrupted: everything the demo started is stopped and removed.")
      : Console.error(`\n✗ The demo failed.\n${explain(exit.cause)}`)
  )
)

NodeRuntime.runMain(demo, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    onExit(Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? (finished ? 0 : 130) : 1)
})
