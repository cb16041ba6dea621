import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Clock, Duration, Effect, type Fiber, Layer, Option } from "effect"
import type { Server } from "node:http"
import { Server as NetServer } from "node:net"
import { OperationsConfig } from "../Config.ts"

/**
 * The instance's drain on SIGTERM/SIGINT: which requests are still in flight, whether the instance is draining, and
 * how much of SHUTDOWN_TIMEOUT is left. Background workers read it to stop taking new work and to bound their wait.
 */
export class Drain extends Effect.Service<Drain>()("Http/Drain", {
  effect: Effect.gen(function*() {
    const { shutdownTimeout } = yield* OperationsConfig
    /** When the drain must end (epoch ms), once it has begun. Read on every answer, so a plain variable. */
    let deadline: number | undefined

    const draining = Effect.sync(() => deadline !== undefined)

    /** What is left of SHUTDOWN_TIMEOUT since the signal (all of it while not draining). */
    const remaining = Effect.gen(function*() {
      if (deadline === undefined) return shutdownTimeout
      return Duration.millis(Math.max(0, deadline - (yield* Clock.currentTimeMillis)))
    })

    /** Once draining, every answer closes its connection, so kept-alive clients reconnect to another instance. */
    const closeWhenDraining: HttpApp.PreResponseHandler = (_request, response) =>
      Effect.succeed(deadline === undefined ? response : HttpServerResponse.setHeader(response, "connection", "close"))

    /**
     * The requests in flight, counted on every request: a plain set (its size is the count) and a latch opened when
     * the last one leaves, rather than a SubscriptionRef whose every update takes a lock and publishes a change.
     */
    const requests = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
    const empty = Effect.unsafeMakeLatch(true)
    const leave = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => () => {
      requests.delete(fiber)
      if (requests.size === 0) empty.unsafeOpen()
    }

    /**
     * Counts a request in flight until its fiber has ended: its answer written and every finalizer of its fiber run.
     * The fiber's own observer says so, which costs no effect on the request's path.
     */
    const track = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      Effect.withFiberRuntime((fiber) => {
        requests.add(fiber)
        empty.unsafeClose()
        fiber.addObserver(leave(fiber))
        return app
      })

    const idle = Effect.interruptible(empty.await)

    /**
     * Stops accepting connections but keeps the established ones, so a request that arrives on a kept-alive
     * connection is still answered (with `Connection: close`); waits for every request in flight, at most
     * SHUTDOWN_TIMEOUT. Past it, the requests left are interrupted: their fibers release what they hold (a
     * transfer's lease goes to the reconciler) and they answer 503. Connections that still hang are then closed.
     */
    const shutdown = (server: Server) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        deadline = started + Duration.toMillis(shutdownTimeout)
        yield* Effect.logInfo("shutting down: draining requests in flight").pipe(
          Effect.annotateLogs({ inFlight: requests.size })
        )
        NetServer.prototype.close.call(server)
        const drained = yield* Effect.timeoutOption(idle, shutdownTimeout)
        if (Option.isNone(drained)) {
          yield* Effect.logWarning("SHUTDOWN_TIMEOUT reached: cutting off the requests still in flight").pipe(
            Effect.annotateLogs({ inFlight: requests.size })
          )
          const self = yield* Effect.fiberId
          yield* Effect.forEach(requests, (fiber) => fiber.interruptAsFork(self), { discard: true })
          yield* Effect.timeoutOption(idle, Duration.seconds(5))
          server.closeAllConnections()
        }
        server.close()
        yield* Effect.logInfo("HTTP server drained").pipe(
          Effect.annotateLogs({ ms: (yield* Clock.currentTimeMillis) - started })
        )
      })

    return { draining, remaining, track, closeWhenDraining, shutdown } as const
  })
}) {}

/** The serve middleware's outer layer: counts requests in flight. */
export const trackRequests = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | Drain> =>
  Effect.flatMap(Drain, (drain) => drain.track(app))

/**
 * Connections close once draining: one pre-response handler in the HTTP server's fiber refs, which every request's
 * fiber inherits, rather than one appended on each request. Provide it to the server's layer.
 */
export const DrainAnswersLive = Layer.scopedDiscard(
  Effect.flatMap(Drain, (drain) =>
    Effect.locallyScopedWith(HttpApp.currentPreResponseHandlers, (handlers) =>
      Option.some(Option.match(handlers, {
        onNone: () => drain.closeWhenDraining,
        onSome: (earlier): HttpApp.PreResponseHandler => (request, response) =>
          Effect.flatMap(earlier(request, response), (answer) => drain.closeWhenDraining(request, answer))
      }))))
)

/**
 * Built after the HTTP server and every route, so that when SIGTERM/SIGINT interrupts the main fiber and the layers
 * close in reverse order, this finalizer runs first: the server drains while every service and the database still
 * work, and only then do the workers stop and the database close.
 */
export const drainOnShutdown = (server: Server) =>
  Layer.scopedDiscard(Effect.flatMap(Drain, (drain) => Effect.addFinalizer(() => drain.shutdown(server)))).pipe(
    Layer.provide(Drain.Default)
  )
