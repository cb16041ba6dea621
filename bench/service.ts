// The real service, composed as src/Server/main.ts and test/support/TestApp.ts compose it (`appOn` with a Node HTTP
// server), on a random loopback port, logging at Warning and above. Settings come from the environment the
// benchmark gives this child process. Not meant to be run by hand: bench/transfer.ts forks it.
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { createServer } from "node:http"
import { appOn } from "../src/Server/App.ts"
import { serveAsChild } from "./support.ts"

const node = createServer()
const ServiceLive = appOn(NodeHttpServer.layer(() => node, { host: "127.0.0.1", port: 0 })).pipe(
  Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
)

const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(ServiceLive, scope))
const address = Context.get(context, HttpServer.HttpServer).address
if (address._tag !== "TcpAddress") throw new Error("the service did not bind a TCP port")

serveAsChild(`http://127.0.0.1:${address.port}`, async () => {
  node.closeAllConnections()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})
