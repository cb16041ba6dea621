// The service itself, once main.ts has started what can run while it loads: the HTTP server on the whole app.
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { appOn } from "./App.ts"
import { ServerConfig } from "./Config.ts"
import { drainOnShutdown } from "./Health/Drain.ts"
import { answerMalformedRequests } from "./Http/ClientErrors.ts"

/** The process's one HTTP server; the drain on shutdown works on it directly. */
const server = createServer()
answerMalformedRequests(server)

const ServerLive = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ host, port }) => NodeHttpServer.layer(() => server, { host, port }))
)

/**
 * On SIGTERM/SIGINT, runMain interrupts the main fiber and the layers close in the reverse order of their
 * construction: the drain first (it is built last), then the routes and the server, then the background workers
 * (which give back what they hold), and the database last, so it outlives every request and worker.
 */
const MainLive = drainOnShutdown(server).pipe(
  Layer.provide(appOn(ServerLive)),
  Layer.tap(() =>
    Effect.flatMap(ServerConfig, ({ publicUrl }) => Effect.logInfo(`listening; docs at ${publicUrl}/docs`))
  )
)

Layer.launch(MainLive).pipe(NodeRuntime.runMain)
