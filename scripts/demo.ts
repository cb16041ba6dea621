// `npm run demo`: a payroll you can watch, offline. The loopback ledger (with the emulated confidential token), the
// real service as a child process on a temporary embedded database, and a scripted employer paying five contractors
// through the typed client. Everything it starts is stopped and removed when it ends, Ctrl-C included.
//   npm run demo              runs it and stops
//   npm run demo -- --keep    leaves the service and the ledger running until Ctrl-C, to look around
import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Exit, Schema } from "effect"
import { Batch } from "../src/Domain/Batch.ts"
import { DEMO_TOKEN, demoLedger } from "./DemoLedger.ts"
import { type DemoService, demoService } from "./DemoService.ts"
import { demoPayroll } from "./DemoPayroll.ts"
import { DemoFailure, explain, step } from "./Step.ts"
import { provingSetup } from "../test/support/ConfidentialProving.ts"

const LEDGER_MS = 1_000
const keep = process.argv.includes("--keep")
let finished = false

/** The end of what the service logged, when the payroll went wrong, and whether it is still running. */
const serviceLog = (service: DemoService) => {
  const ended = service.ended()
  const lines = service.output().trimEnd().split("\n").slice(-15).join("\n")
  return `\nThe service's last log lines:\n${lines}${ended === undefined ? "" : `\nThe service has ended (${ended}).`}`
}

const demo = Effect.gen(function*() {
  const started = Date.now()
  const ledger = yield* step(
    `Starting the loopback Stellar ledger (a ledger every ${LEDGER_MS / 1000} s, the confidential token at ${DEMO_TOKEN} verifying proofs with bb.js)`,
    demoLedger(LEDGER_MS)
  )
  const service = yield* step(
    "Starting the service (node src/Server/main.ts, embedded PostgreSQL in a temporary DATA_DIR)",
    demoService(ledger, DEMO_TOKEN)
  )
  yield* Console.log(`  ${service.url} (pid ${service.pid}, DATA_DIR ${service.dataDir})`)
  const setup = yield* step("Loading the prover (OZ's circuits at 8af46e2c, bb.js, the test CRS)", provingSetup)
  const { session, batch, hashes } = yield* demoPayroll(service.url, ledger, DEMO_TOKEN, setup).pipe(
    Effect.timeoutFail({
      duration: "5 minutes",
      onTimeout: () => new DemoFailure({ step: "Running the demo payroll", reason: "not done within 5 minutes" })
    }),
    Effect.tapErrorCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : Console.error(serviceLog(service)))
  )
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
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
      : "  The service stops now: `npm run demo -- --keep` keeps it and the ledger running to look around.",
    ""
  ].join("\n"))
  finished = true
  if (keep) {
    yield* Console.log("The service and the ledger keep running (the session token above lasts an hour): Ctrl-C to stop them.")
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
