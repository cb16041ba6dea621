import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Clock, Duration, Effect, type Fiber, Layer, Option, Ref, Stream, SubscriptionRef } from "effect"
import type { Server } from "node:http"
import { Server as NetServer } from "node:net"
import { OperationsConfig } from "../Config.ts"

/**
 * The instance's drain on SIGTERM/SIGINT: which requests are still in flight, whether the instance is draining, and
 * how much of SHUTDOWN_TIMEOUT is left. Background workers read it to stop taking new work and to bound their wait.
 */
export class Drain extends Effect.Service<Drain>()("Health/Drain", {
  effect: Effect.gen(function*() {
    const { shutdownTimeout } = yield* OperationsConfig
    const inFlight = yield* SubscriptionRef.make(0)
    const deadline = yield* Ref.make(Option.none<number>())

    const draining = Effect.map(Ref.get(deadline), Option.isSome)

    /** What is left of SHUTDOWN_TIMEOUT since the signal (all of it while not draining). */
    const remaining = Effect.gen(function*() {
      const until = yield* Ref.get(deadline)
      if (Option.isNone(until)) return shutdownTimeout
      return Duration.millis(Math.max(0, until.value - (yield* Clock.currentTimeMillis)))
    })

    /** Once draining, every answer closes its connection, so kept-alive clients reconnect to another instance. */
    const closeWhenDraining: HttpApp.PreResponseHandler = (_request, response) =>
      Effect.map(draining, (yes) => yes ? HttpServerResponse.setHeader(response, "connection", "close") : response)

    const requests = new Set<Fiber.RuntimeFiber<unknown, unknown>>()

    /** Counts a request in flight until its answer is written and every finalizer of its fiber has run. */
    const track = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      Effect.withFiberRuntime((fiber) =>
        Effect.acquireUseRelease(
          Effect.zipRight(Effect.sync(() => requests.add(fiber)), SubscriptionRef.update(inFlight, (n) => n + 1)),
          () => Effect.zipRight(HttpApp.appendPreResponseHandler(closeWhenDraining), app),
          () => Effect.zipRight(Effect.sync(() => requests.delete(fiber)), SubscriptionRef.update(inFlight, (n) => n - 1))
        )
      )

    const idle = inFlight.changes.pipe(Stream.filter((n) => n === 0), Stream.take(1), Stream.runDrain, Effect.interruptible)

    /**
     * Stops accepting connections but keeps the established ones, so a request that arrives on a kept-alive
     * connection is still answered (with `Connection: close`); waits for every request in flight, at most
     * SHUTDOWN_TIMEOUT. Past it, the requests left are interrupted: their fibers release what they hold (a
     * transfer's lease goes to the reconciler) and they answer 503. Connections that still hang are then closed.
     */
    const shutdown = (server: Server) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        yield* Ref.set(deadline, Option.some(started + Duration.toMillis(shutdownTimeout)))
        yield* Effect.logInfo("shutting down: draining requests in flight").pipe(
          Effect.annotateLogs({ inFlight: yield* SubscriptionRef.get(inFlight) })
        )
        NetServer.prototype.close.call(server)
        const drained = yield* Effect.timeoutOption(idle, shutdownTimeout)
        if (Option.isNone(drained)) {
          yield* Effect.logWarning("SHUTDOWN_TIMEOUT reached: cutting off the requests still in flight").pipe(
            Effect.annotateLogs({ inFlight: yield* SubscriptionRef.get(inFlight) })
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

    return { draining, remaining, track, shutdown } as const
  })
}) {}

/** The serve middleware's outer layer: counts requests in flight and closes connections once draining. */
export const trackRequests = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | Drain> =>
  Effect.flatMap(Drain, (drain) => drain.track(app))

/**
 * Built after the HTTP server and every route, so that when SIGTERM/SIGINT interrupts the main fiber and the layers
 * close in reverse order, this finalizer runs first: the server drains while every service and the database still
 * work, and only then do the workers stop and the database close.
 */
export const drainOnShutdown = (server: Server) =>
  Layer.scopedDiscard(Effect.flatMap(Drain, (drain) => Effect.addFinalizer(() => drain.shutdown(server)))).pipe(
    Layer.provide(Drain.Default)
  )
