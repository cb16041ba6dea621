import { enableCompileCache } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { freshBundle } from "./ServerBundle.ts"
import { DEFAULT_DATA_DIR } from "../EmbeddedPostgres/FirstStart.ts"
import { SERVICE_CLUSTER, startPostmaster } from "../EmbeddedPostgres/Postmaster.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

/**
 * The entry point (`npm start`). Compiling the bundle is a good part of loading it: V8's compiled code is kept for the
 * next start beside the bundle, not in the shared temporary directory another user could fill first (NODE_COMPILE_CACHE,
 * when set, has Node keep it there instead; a directory that cannot be written only means no cache).
 */
enableCompileCache(Path.join(root, "dist", "server", "compile-cache"))

/**
 * With the embedded database, PostgreSQL starts first, from a plain-Node module (initdb on a first start, then the
 * server), and runs while the rest of the service loads: loading it holds the event loop for about half a second, so
 * the start is awaited up to the server's spawn (a few milliseconds), or until it waits for initdb. The database
 * layer takes the server over, or reports why it did not start (a failure is not reported here).
 */
if ((process.env.DATABASE_URL ?? "") === "") {
  await startPostmaster({ dataDir: process.env.DATA_DIR ?? DEFAULT_DATA_DIR, ...SERVICE_CLUSTER }).underway
}

// The bundle loads in about a third of the time the ~2,000 modules take one by one; a stale one is never used.
await import(freshBundle(root) ?? "./Launch.ts")
