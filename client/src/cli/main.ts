#!/usr/bin/env node
// `payroll`: the Confidential Contractor Payroll Service from a terminal or a script (docs/cli.md), over the client
// package's own functions (client/src/payroll/): the same keys, sealing keys and flows as the console.
import { Command } from "@effect/cli"
import { FetchHttpClient } from "@effect/platform"
import { Cause, Console, Effect, Exit, Fiber, Layer } from "effect"
import { audit } from "./Audit.ts"
import { login, logout, whoami } from "./Auth.ts"
import { batches } from "./Batches.ts"
import { contractors } from "./Contractors.ts"
import { disclose } from "./Disclose.ts"
import { CliEnvironment } from "./Environment.ts"
import { escrow } from "./Escrow.ts"
import { recipient } from "./Recipient.ts"
import { classify, EXIT } from "./Failure.ts"
import { treasury } from "./Treasury.ts"
import { verify } from "./Verify.ts"

const root = Command.make("payroll").pipe(
  Command.withDescription("The payroll command-line client: sign in with your wallet's key, pay batches, read and withdraw payouts, audit"),
  Command.withSubcommands([login, logout, whoami, treasury, batches, contractors, escrow, audit, disclose, recipient, verify])
)

const cli = Command.run(root, { name: "payroll", version: "1.0.0" })

const program = cli(process.argv).pipe(
  Effect.as(EXIT.ok as number),
  Effect.catchAllCause((cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.succeed(130)
    const failure = Cause.failureOption(cause)
    const { code, message } = classify(failure._tag === "Some" ? failure.value : Cause.squash(cause))
    return Effect.as(message === "" ? Effect.void : Console.error(`payroll: ${message}`), code as number)
  }),
  Effect.provide(Layer.mergeAll(CliEnvironment, FetchHttpClient.layer))
)

const fiber = Effect.runFork(program)
// Ctrl-C stops what has not been signed yet (scopes close: bb.js stops); what was sent stays sent.
const interrupt = () => Effect.runFork(Fiber.interruptFork(fiber))
process.once("SIGINT", interrupt)
process.once("SIGTERM", interrupt)
fiber.addObserver((exit) => {
  const code = Exit.isSuccess(exit) ? exit.value : Exit.isInterrupted(exit) ? 130 : EXIT.usage
  // Both streams flushed first, so a script reading a pipe gets the whole answer; then out, whatever still runs.
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)))
})
