import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"
import { mkdir } from "node:fs/promises"
import * as Path from "node:path"

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * Starts PGlite with its data under `dataDir` and serves it on a loopback port, so that the ordinary
 * PostgreSQL wire client runs unchanged against it. Stopped when the scope closes.
 *
 * The pool holds one connection (PGlite is one session), but the socket server admits two: it frees a broken
 * connection's slot only on a later tick, so with one slot the pool's immediate reconnect would be turned away
 * ("Too many connections") and a request would fail for nothing. A transaction a broken connection left open is
 * rolled back by the socket server.
 */
export const startEmbedded = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const dir = Path.resolve(dataDir, "pg")
        await mkdir(dir, { recursive: true })
        const db = await PGlite.create(dir)
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 2 })
        await server.start()
        const [, port] = server.getServerConn().split(":")
        return { db, server, port: Number(port) }
      },
      catch: (cause) => new EmbeddedDatabaseError({ message: "could not start the embedded database", cause })
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
      })
  ).pipe(Effect.map(({ port }) => ({ host: "127.0.0.1", port })))
