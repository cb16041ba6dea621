import { Keypair } from "@stellar/stellar-sdk"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import type { LoopbackRpc } from "./LoopbackRpc.ts"
import { CONFIDENTIAL_TOKEN, freePort, type TestAppShape } from "./TestApp.ts"

export interface Spawned {
  readonly child: ChildProcess
  /** The TestAppShape of a separate process: no clock to move, no further instance to start in it. */
  readonly app: Omit<TestAppShape, "clock" | "startInstance">
  /** Resolves with the exit code and the time (ms since epoch) the process exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly at: number }>
  readonly output: () => string
}

/**
 * The real process, `node src/Server/main.ts` as `npm start` runs it, on a free port with the given database settings and
 * the loopback RPC; ready once `/health/live` answers. Killed (SIGKILL) when the scope closes, if still running.
 */
export const spawnService = (rpc: LoopbackRpc, env: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const port = yield* Effect.promise(freePort)
    const sponsorKey = Keypair.random()
    const sep10Key = Keypair.random()
    const faucetKey = Keypair.random()
    rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN)
    rpc.setAccount({ id: sponsorKey.publicKey() })
    rpc.setAccount({ id: faucetKey.publicKey() })
    const jwtSecret = randomBytes(32).toString("base64url")
    const settings: Record<string, string> = {
      PORT: String(port),
      STELLAR_RPC_URL: rpc.url,
      FRIENDBOT_URL: rpc.url,
      CONFIDENTIAL_TOKEN_CONTRACT: CONFIDENTIAL_TOKEN,
      JWT_SECRET: jwtSecret,
      SEP10_SIGNING_SECRET: sep10Key.secret(),
      SPONSOR_SECRET: sponsorKey.secret(),
      FAUCET_SECRET: faucetKey.secret(),
      AUTH_RATE_LIMIT: "100000",
      CHALLENGE_RATE_LIMIT: "100000",
      ...env
    }
    let output = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const { DATABASE_URL: _url, ...inherited } = process.env
        return spawn(process.execPath, ["src/Server/main.ts"], { env: { ...inherited, ...settings }, stdio: ["ignore", "pipe", "pipe"] })
      }),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
    )
    const url = `http://127.0.0.1:${port}`
    yield* Effect.promise(async () => {
      const started = Date.now()
      while (Date.now() - started < 90_000 && child.exitCode === null) {
        const ok = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false)
        if (ok) return
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`the service did not start:\n${output}`)
    })
    const app = { url, rpc, sep10Key, sponsorKey, faucetKey, jwtSecret, config: settings }
    return { child, app, exited, output: () => output } satisfies Spawned
  })

/** This process's environment without DATABASE_URL: a spawned service then runs its own embedded PostgreSQL. */
export const withoutDatabaseUrl = () => {
  const { DATABASE_URL: _url, ...inherited } = process.env
  return inherited
}

/**
 * `npm start`'s process without DATABASE_URL, run until it exits by itself (within 60 s, else SIGKILL): its pid,
 * exit code and all it wrote.
 */
export const runToExit = (env: Readonly<Record<string, string>>) =>
  Effect.promise(async () => {
    const child = spawn(process.execPath, ["src/Server/main.ts"], { env: { ...withoutDatabaseUrl(), ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
    clearTimeout(timer)
    return { pid: child.pid, code, output, lines: output.split("\n").filter((line) => line.trim() !== "") }
  })
