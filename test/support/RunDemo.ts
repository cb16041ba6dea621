// `npm run demo` as the suites run it (test/demo.test.ts, test/demo-network.test.ts): a child process whose
// environment carries none of the network variables of the test process, only those the test gives it.
import { Effect } from "effect"
import { spawn } from "node:child_process"

const NETWORK_VARIABLES = [
  "DEMO_FUNDER_SECRET", "STELLAR_RPC_URL", "NETWORK_PASSPHRASE", "CONFIDENTIAL_TOKEN_CONTRACT", "CONFIDENTIAL_AUDITOR_CONTRACT",
  "CONFIDENTIAL_VERIFIER_CONTRACT", "CONFIDENTIAL_AUDITOR_ID", "CRS_DIR", "EVENTS_START_LEDGER", "FRIENDBOT_URL", "DATABASE_URL"
]

/** Runs `node scripts/demo.ts` with `env` to its end: its exit code and everything it printed. */
export const runDemo = (env: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const inherited = { ...process.env }
      for (const name of NETWORK_VARIABLES) delete inherited[name]
      const demo = spawn(process.execPath, ["scripts/demo.ts"], { env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      demo.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      demo.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      demo.once("exit", (code) => resolve({ code, output }))
    })
  )
