import { Reactivity } from "@effect/experimental"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Keypair } from "@stellar/stellar-sdk"
import { ConfigProvider, Context, Effect, ExecutionStrategy, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { appOn } from "../../src/Server/App.ts"
import { answerMalformedRequests } from "../../src/Http/ClientErrors.ts"
import { LoopbackRpc } from "./LoopbackRpc.ts"
import type { LoopbackProofVerifier } from "./LoopbackProofVerifier.ts"
import { STANDALONE_PASSPHRASE } from "../../client/src/confidential/proving/CrsFiles.ts"
import { ShiftedClock } from "./ShiftedClock.ts"
import { freshDatabase } from "./TestDatabase.ts"

export const CONFIDENTIAL_TOKEN = "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"

export interface Instance {
  readonly url: string
  /** Stops this instance as a crash would look to its peers: its HTTP server and background work end. */
  readonly stop: Effect.Effect<void>
}

export interface TestAppShape {
  readonly url: string
  readonly rpc: LoopbackRpc
  readonly clock: ShiftedClock
  readonly sep10Key: Keypair
  readonly sponsorKey: Keypair
  readonly faucetKey: Keypair
  readonly jwtSecret: string
  readonly config: Readonly<Record<string, string>>
  /** Starts one more service instance on the same database and RPC. */
  readonly startInstance: Effect.Effect<Instance>
}

export class TestApp extends Context.Tag("test/TestApp")<TestApp, TestAppShape>() {}

/** A port no one listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

export const loopbackRpc = (ledgerIntervalMs = 50, networkPassphrase?: string) =>
  Effect.acquireRelease(
    Effect.promise(() => LoopbackRpc.start({ ledgerIntervalMs, ...(networkPassphrase === undefined ? {} : { networkPassphrase }) })),
    (rpc) => Effect.promise(() => rpc.close())
  )

/**
 * The whole service, as `main.ts` composes it, on a random loopback port with a fresh database,
 * the loopback Stellar RPC and a clock the test can move. `config` adds or overrides settings.
 * Further instances share the database, each with its own pool, as separate processes would.
 */
export const TestAppLive = (
  config: Readonly<Record<string, string>> = {},
  options: {
    readonly ledgerIntervalMs?: number
    readonly generatedKeys?: boolean
    /** Listen on a fixed free port with PUBLIC_URL = http://127.0.0.1:PORT, as stock SEP-1/SEP-10 clients need. */
    readonly selfUrl?: boolean
    /**
     * The token at CONFIDENTIAL_TOKEN verifies real proofs with this verifier (LoopbackConfidentialToken's proving
     * mode, OZ's published keys), on a standalone network (NETWORK_PASSPHRASE = STANDALONE_PASSPHRASE), as a
     * local network a team runs is.
     */
    readonly verifier?: LoopbackProofVerifier
  } = {}
) =>
  Layer.scoped(
    TestApp,
    Effect.gen(function*() {
      const standalone = options.verifier === undefined ? undefined : STANDALONE_PASSPHRASE
      const rpc = yield* loopbackRpc(options.ledgerIntervalMs, standalone)
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const sep10Key = Keypair.random()
      const sponsorKey = Keypair.random()
      const faucetKey = Keypair.random()
      const port = options.selfUrl === true ? yield* Effect.promise(freePort) : 0
      const jwtSecret = randomBytes(32).toString("base64url")
      const secrets = options.generatedKeys === true ? {} : {
        JWT_SECRET: jwtSecret,
        SEP10_SIGNING_SECRET: sep10Key.secret(),
        SPONSOR_SECRET: sponsorKey.secret(),
        FAUCET_SECRET: faucetKey.secret()
      }
      const settings: Record<string, string> = {
        ...database,
        STELLAR_RPC_URL: rpc.url,
        ...secrets,
        CONFIDENTIAL_TOKEN_CONTRACT: CONFIDENTIAL_TOKEN,
        PUBLIC_URL: port === 0 ? "http://payroll.test" : `http://127.0.0.1:${port}`,
        AUTH_RATE_LIMIT: "100000",
        CHALLENGE_RATE_LIMIT: "100000",
        ...(standalone === undefined ? {} : { NETWORK_PASSPHRASE: standalone }),
        ...config
      }
      rpc.deployConfidentialToken(CONFIDENTIAL_TOKEN, options.verifier === undefined ? {} : { verifier: options.verifier })
      rpc.setAccount({ id: sponsorKey.publicKey() })
      rpc.setAccount({ id: faucetKey.publicKey() })
      const clock = new ShiftedClock()
      const environment = Layer.mergeAll(
        Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))),
        Layer.setClock(clock),
        Logger.minimumLogLevel(LogLevel.Warning)
      )
      const outer = yield* Effect.scope

      let instances = 0
      const startInstance = Effect.gen(function*() {
        const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
        const node = createServer()
        answerMalformedRequests(node)
        const http = NodeHttpServer.layer(() => node, { host: "127.0.0.1", port: instances++ === 0 ? port : 0 })
        const server = appOn(http).pipe(Layer.provide(environment))
        const context = yield* Layer.buildWithScope(server, scope)
        const address = Context.get(context, HttpServer.HttpServer).address
        const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
        const stop = Effect.sync(() => node.closeAllConnections()).pipe(Effect.zipRight(Scope.close(scope, Exit.void)))
        return { url, stop }
      }).pipe(Effect.orDie)

      const first = yield* startInstance
      return { url: first.url, rpc, clock, sep10Key, sponsorKey, faucetKey, jwtSecret, config: settings, startInstance }
    })
  )
