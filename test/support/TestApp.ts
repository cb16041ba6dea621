import { Reactivity } from "@effect/experimental"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Keypair } from "@stellar/stellar-sdk"
import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel } from "effect"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { AppLive } from "../../src/App.ts"
import { LoopbackRpc } from "./LoopbackRpc.ts"
import { ShiftedClock } from "./ShiftedClock.ts"
import { freshDatabase } from "./TestDatabase.ts"

export const CONFIDENTIAL_TOKEN = "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"

export interface TestAppShape {
  readonly url: string
  readonly rpc: LoopbackRpc
  readonly clock: ShiftedClock
  readonly sep10Key: Keypair
  readonly jwtSecret: string
  readonly config: Readonly<Record<string, string>>
}

export class TestApp extends Context.Tag("test/TestApp")<TestApp, TestAppShape>() {}

export const loopbackRpc = Effect.acquireRelease(
  Effect.promise(() => LoopbackRpc.start()),
  (rpc) => Effect.promise(() => rpc.close())
)

/**
 * The whole service, as `main.ts` composes it, on a random loopback port with a fresh database,
 * the loopback Stellar RPC and a clock the test can move. `config` adds or overrides settings.
 */
export const TestAppLive = (config: Readonly<Record<string, string>> = {}) =>
  Layer.scoped(
    TestApp,
    Effect.gen(function*() {
      const rpc = yield* loopbackRpc
      const database = yield* freshDatabase.pipe(Effect.provide(Reactivity.layer))
      const sep10Key = Keypair.random()
      const jwtSecret = randomBytes(32).toString("base64url")
      const settings: Record<string, string> = {
        ...database,
        STELLAR_RPC_URL: rpc.url,
        JWT_SECRET: jwtSecret,
        SEP10_SIGNING_SECRET: sep10Key.secret(),
        SPONSOR_SECRET: Keypair.random().secret(),
        FAUCET_SECRET: Keypair.random().secret(),
        CONFIDENTIAL_TOKEN_CONTRACT: CONFIDENTIAL_TOKEN,
        PUBLIC_URL: "http://payroll.test",
        ...config
      }
      const clock = new ShiftedClock()
      const server = AppLive.pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))),
        Layer.provide(Layer.setClock(clock)),
        Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
      )
      const context = yield* Layer.build(server)
      const address = Context.get(context, HttpServer.HttpServer).address
      const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
      return { url, rpc, clock, sep10Key, jwtSecret, config: settings }
    })
  )
