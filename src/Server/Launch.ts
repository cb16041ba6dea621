// The service itself, once main.ts has started what can run while it loads: the HTTP server on the whole app.
import type { HttpServerError } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { appOn } from "./App.ts"
import { ServerConfig } from "../Config.ts"
import { EverySetting } from "./Settings.ts"
import { drainOnShutdown } from "../Http/Drain.ts"
import { answerMalformedRequests } from "../Http/ClientErrors.ts"
import { LoggingLive } from "../Observability/Logging.ts"
import { reportStartFailure, StartError } from "./StartFailure.ts"
import { RpcClient } from "../Stellar/RpcClient.ts"
import { RpcProbeLive } from "../Stellar/RpcProbe.ts"

/** The process's one HTTP server; the drain on shutdown works on it directly. */
const server = createServer()
answerMalformedRequests(server)

/** Why the socket could not be opened, in the settings' words. */
const listenRefused = (host: string, port: number) => (error: HttpServerError.ServeError) => {
  const cause = error.cause as NodeJS.ErrnoException | undefined
  const message = cause?.code === "EADDRINUSE"
    ? `PORT ${port} is already in use (on HOST ${host}): stop what listens there, or set another PORT`
    : cause?.code === "EACCES"
    ? `PORT ${port} may not be opened by this user (on HOST ${host}): ports below 1024 need privileges; ` +
      "set PORT to 1024 or above"
    : cause?.code === "EADDRNOTAVAIL"
    ? `HOST ${host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0 or :: for all of them)`
    : cause?.code === "ENOTFOUND" || cause?.code === "EAI_AGAIN"
    ? `HOST ${host} does not resolve to an address: set HOST to an IP address or a name this machine resolves`
    : `cannot listen on HOST ${host}, PORT ${port}: ${cause?.message ?? error.message}`
  return new StartError({ message, cause: error })
}

const ServerLive = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ host, port }) =>
    NodeHttpServer.layer(() => server, { host, port }).pipe(Layer.mapError(listenRefused(host, port))))
)

/**
 * On SIGTERM/SIGINT, runMain interrupts the main fiber and the layers close in the reverse order of their
 * construction: the drain first (it is built last), then the routes and the server, then the background workers
 * (which give back what they hold), and the database last, so it outlives every request and worker. Beside them, from
 * the start, one look at whether the Stellar RPC answers.
 */
const MainLive = drainOnShutdown(server).pipe(
  Layer.provide(appOn(ServerLive)),
  Layer.tap(() =>
    Effect.flatMap(ServerConfig, ({ publicUrl }) => Effect.logInfo(`listening; docs at ${publicUrl}/docs`))
  ),
  Layer.merge(RpcProbeLive.pipe(Layer.provide(RpcClient.Default)))
)

/**
 * Every setting is read first: a refused value stops the start at once, before the database, with every such value
 * named. A failed start is one log line in LOG_FORMAT (runMain's own report would be pretty text), exit code 1.
 */
Effect.zipRight(EverySetting, Layer.launch(MainLive)).pipe(
  Effect.tapErrorCause(reportStartFailure),
  Effect.provide(LoggingLive.pipe(Layer.orElse(() => Layer.empty))),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
