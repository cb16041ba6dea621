// The `payroll` binary as a script runs it: a child process (`node client/src/cli/main.ts`, what `npm run payroll`
// runs), with its own config directory, its exit code, stdout and stderr.
import type { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const ROOT = join(import.meta.dirname, "../..")
const NODE = join(ROOT, "node_modules/.bin/node")
const MAIN = join(ROOT, "client/src/cli/main.ts")

export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A user of the CLI: their config directory (XDG_CONFIG_HOME) and the service it talks to. */
export const cliUser = (service: string) => {
  const home = mkdtempSync(join(tmpdir(), "payroll-cli-"))
  const run = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
    Effect.async<CliRun>((resume) => {
      execFile(NODE, [MAIN, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config"), PAYROLL_SERVICE_URL: service, NO_COLOR: "1", ...env },
        maxBuffer: 16 * 1024 * 1024
      }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resume(Effect.succeed({ code, stdout, stderr }))
      })
    })
  /** The account's secret in a file of `mode` (0600 unless said). */
  const secretFile = (key: Keypair, mode = 0o600) => {
    const path = join(home, `${key.publicKey().slice(0, 8)}.secret`)
    writeFileSync(path, `${key.secret()}\n`, { mode })
    chmodSync(path, mode)
    return path
  }
  return { home, config: join(home, "config", "payroll"), run, secretFile }
}

/** The JSON a `--json` run printed. */
export const json = (run: CliRun) => JSON.parse(run.stdout) as any
