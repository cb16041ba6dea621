import { Keypair } from "@stellar/stellar-sdk"
import { Console, Data, Effect } from "effect"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { DemoNetwork } from "./DemoNetwork.ts"
import { stopService } from "./StopService.ts"

const ROOT = join(import.meta.dirname, "..")
const KEPT_OUTPUT = 64 * 1024

/**
 * Settings of the service that the caller's environment must not change for the demo (the network's own are set from
 * DemoNetwork's `serviceEnv`; the token's registries the service reads from the token, which the demo checked them
 * against), and the demo's funder secret, which the service has no business seeing.
 */
const OVERRIDDEN = [
  "DATABASE_URL", "PUBLIC_URL", "NODE_ENV", "HOME_DOMAIN", "WEB_AUTH_DOMAIN", "CHANNEL_SECRETS", "USDC_CONTRACT",
  "VAULT_CONTRACT", "SPONSOR_ALLOWED_CONTRACTS", "SPONSOR_QUOTA", "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "PRIVY_APP_ID", "CORS_ORIGINS", "TRUSTED_PROXIES", "LOG_LEVEL", "FRIENDBOT_URL",
  "EVENTS_START_LEDGER", "DEMO_FUNDER_SECRET", "CONFIDENTIAL_AUDITOR_CONTRACT", "CONFIDENTIAL_VERIFIER_CONTRACT",
  "CONFIDENTIAL_AUDITOR_ID"
]

export class ServiceFailed extends Data.TaggedError("ServiceFailed")<{ readonly message: string }> {}

export interface DemoService {
  readonly url: string
  readonly dataDir: string
  readonly pid: number
  /** The end of what the service wrote (logfmt), for a failure report. */
  readonly output: () => string
  /** How the service ended, if it did: its exit code or signal. */
  readonly ended: () => string | undefined
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The real service, `node src/Server/main.ts` as `npm start` runs it, in a process group of its own (a Ctrl-C reaches only
 * the demo, which stops it in order), on a free port, with its embedded database in a fresh temporary DATA_DIR and
 * the network's settings (the loopback ledger as its Stellar RPC and friendbot; on a network, its RPC and
 * EVENTS_START_LEDGER), `keys.sponsor` paying its fee-bumps (SPONSOR_SECRET: its account exists already) and
 * `keys.faucet` as its FAUCET_SECRET (which the demo never asks for anything). Ready once `/health/live` answers.
 * Closing the scope stops it and removes the directory.
 */
export const demoService = (network: DemoNetwork, keys: { readonly sponsor: Keypair; readonly faucet: Keypair }) =>
  Effect.gen(function*() {
    const dataDir = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "payroll-demo-"))),
      (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    )
    const port = yield* Effect.promise(freePort)
    const inherited = { ...process.env }
    for (const name of OVERRIDDEN) delete inherited[name]
    const env = {
      ...inherited,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ...network.serviceEnv,
      JWT_SECRET: randomBytes(32).toString("base64url"),
      SEP10_SIGNING_SECRET: Keypair.random().secret(),
      SPONSOR_SECRET: keys.sponsor.secret(),
      FAUCET_SECRET: keys.faucet.secret(),
      ARCHIVE_POLL_INTERVAL: "250 millis",
      LOG_FORMAT: "logfmt",
      RECONCILE_INTERVAL: "1 second",
      SHUTDOWN_TIMEOUT: "5 seconds"
    }
    let output = ""
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-KEPT_OUTPUT)
    }
    const { child } = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = spawn(process.execPath, ["src/Server/main.ts"], {
          cwd: ROOT,
          env,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"]
        })
        const exited = new Promise<void>((resolve) => {
          child.once("exit", () => resolve())
          child.once("error", (e) => {
            keep(Buffer.from(`cannot run ${process.execPath}: ${e.message}\n`))
            resolve()
          })
        })
        child.stdout?.on("data", keep)
        child.stderr?.on("data", keep)
        return { child, exited }
      }),
      ({ child, exited }) =>
        Console.log("▸ Stopping the service (SIGTERM: it drains, then stops its embedded PostgreSQL)").pipe(
          Effect.zipRight(stopService(child, exited, dataDir))
        )
    )
    const url = `http://127.0.0.1:${port}`
    yield* Effect.tryPromise({
      try: async () => {
        const deadline = Date.now() + 60_000
        while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
          const live = fetch(`${url}/health/live`, { signal: AbortSignal.timeout(2_000) })
          if (await live.then((r) => r.ok, () => false)) return
          await sleep(100)
        }
        const running = child.exitCode === null && child.signalCode === null
        throw new Error(running ? "not answering after 60 s" : `exited (${child.exitCode ?? child.signalCode})`)
      },
      catch: (e) =>
        new ServiceFailed({ message: `the service did not start: ${(e as Error).message}\n${output.trimEnd()}` })
    })
    const ended = () => (child.exitCode === null ? child.signalCode ?? undefined : `exit code ${child.exitCode}`)
    return { url, dataDir, pid: child.pid ?? 0, output: () => output, ended } satisfies DemoService
  })
